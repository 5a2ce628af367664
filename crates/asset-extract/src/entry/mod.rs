//! An entry's bytes: where an archive's bytes are, and the one choice of how an entry's
//! compressed bytes become its contents, for every method and every reader.

pub(crate) mod checks;
pub(crate) mod decode;
pub(crate) mod methods;
pub(crate) mod opened;
pub(crate) mod parallel;
pub(crate) mod random_access;
pub(crate) mod source;
pub(crate) mod stream_decoder;
