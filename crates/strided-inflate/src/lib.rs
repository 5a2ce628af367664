//! zlib/deflate streams inflated at an offset, with the exact count of input bytes consumed: not implemented yet (issue 4).
