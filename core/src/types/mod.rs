//! CQL types: see mod docs
