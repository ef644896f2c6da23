//! Pieces of option parsing the search functions share: string options limited to fixed words,
//! and path lists.

use std::path::PathBuf;

use omp_napi::{Fields, FromJs, Result, Value, ValueType};
use omp_search::{EntryKind, GlobFormat, GrepMode, LineKind, SortOrder};

/// A Rust enum with a fixed JS spelling per value (`mode: "files_with_matches"`).
pub trait Keyword: Copy + 'static {
    /// Every value, in the order error messages list them.
    const ALL: &'static [Self];

    fn word(self) -> &'static str;
}

/// A string option that must be one of `K`'s words.
pub struct Word<K>(pub K);

impl<'e, K: Keyword> FromJs<'e> for Word<K> {
    fn from_js(value: Value<'e>, name: &str) -> Result<Self> {
        if value.value_type()? == ValueType::String {
            let text: String = value.convert(name)?;
            if let Some(&keyword) = K::ALL.iter().find(|keyword| keyword.word() == text) {
                return Ok(Word(keyword));
            }
        }
        Err(value.type_error(name, &one_of::<K>()))
    }
}

fn one_of<K: Keyword>() -> String {
    let words: Vec<String> = K::ALL.iter().map(|keyword| format!("\"{}\"", keyword.word())).collect();
    format!("one of {}", words.join(", "))
}

impl Keyword for GrepMode {
    const ALL: &'static [Self] = &[GrepMode::Content, GrepMode::FilesWithMatches, GrepMode::Count];

    fn word(self) -> &'static str {
        match self {
            GrepMode::Content => "content",
            GrepMode::FilesWithMatches => "files_with_matches",
            GrepMode::Count => "count",
        }
    }
}

impl Keyword for GlobFormat {
    const ALL: &'static [Self] = &[GlobFormat::Plain, GlobFormat::Long, GlobFormat::Json];

    fn word(self) -> &'static str {
        match self {
            GlobFormat::Plain => "plain",
            GlobFormat::Long => "long",
            GlobFormat::Json => "json",
        }
    }
}

impl Keyword for EntryKind {
    const ALL: &'static [Self] = &[EntryKind::File, EntryKind::Dir, EntryKind::Symlink];

    fn word(self) -> &'static str {
        EntryKind::word(self)
    }
}

impl Keyword for LineKind {
    const ALL: &'static [Self] = &[LineKind::Match, LineKind::Context];

    fn word(self) -> &'static str {
        LineKind::word(self)
    }
}

impl Keyword for SortOrder {
    const ALL: &'static [Self] = &[SortOrder::Path, SortOrder::None];

    fn word(self) -> &'static str {
        match self {
            SortOrder::Path => "path",
            SortOrder::None => "none",
        }
    }
}

/// Overwrites `target` with the paths in the `key` field, when given.
pub fn read_paths(fields: &Fields<'_>, key: &str, target: &mut Vec<PathBuf>) -> Result<()> {
    if let Some(paths) = fields.optional::<Vec<String>>(key)? {
        *target = paths.into_iter().map(PathBuf::from).collect();
    }
    Ok(())
}

/// Overwrites `target` with the path in the `key` field, when given.
pub fn read_path(fields: &Fields<'_>, key: &str, target: &mut PathBuf) -> Result<()> {
    if let Some(path) = fields.optional::<String>(key)? {
        *target = PathBuf::from(path);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{one_of, Keyword};
    use omp_search::{EntryKind, GrepMode, SortOrder};

    fn words<K: Keyword>() -> Vec<&'static str> {
        K::ALL.iter().map(|keyword| keyword.word()).collect()
    }

    #[test]
    fn words_match_api_ts() {
        assert_eq!(words::<GrepMode>(), ["content", "files_with_matches", "count"]);
        assert_eq!(words::<EntryKind>(), ["file", "dir", "symlink"]);
        assert_eq!(words::<SortOrder>(), ["path", "none"]);
        assert_eq!(one_of::<EntryKind>(), r#"one of "file", "dir", "symlink""#);
    }
}
