//! An entry's bytes: where an archive's bytes are, and the decoder that turns an entry's
//! compressed bytes into its contents, for every method.

pub(crate) mod data;
pub(crate) mod methods;
pub(crate) mod opened;
pub(crate) mod random_access;
pub(crate) mod source;
