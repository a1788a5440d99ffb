//! CUJ tests.
