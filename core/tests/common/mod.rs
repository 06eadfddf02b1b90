//! What several integration tests share: reading the vector files under tests/vectors/.

/// The text of `tests/vectors/{name}`. A missing or unreadable file fails the test naming
/// the file and what to do: the vectors are committed, never optional.
pub fn vector_file(name: &str) -> String {
    let path = format!("{}/../tests/vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "tests/vectors/{name} cannot be read ({e}): the vector files are part of the repository; restore it \
             (git checkout -- tests/vectors/{name}) or regenerate it as tests/vectors/README.md says"
        )
    })
}
