//! `SearchError` → JS error codes and messages (the codes are `NativeErrorCode` in
//! core/natives/api.ts).

use omp_napi::NapiError;
use omp_search::SearchError;

const CANCELLED: &str = "OMP_CANCELLED";

/// `timed_out_after` is the `timeoutMs` when the deadline, not the signal, stopped the search.
pub fn search_error(err: SearchError, timed_out_after: Option<u64>) -> NapiError {
    let code = match err {
        SearchError::BadPattern { .. } => "OMP_BAD_PATTERN",
        SearchError::BadGlob { .. } => "OMP_BAD_GLOB",
        SearchError::UnknownType { .. } => "OMP_UNKNOWN_TYPE",
        SearchError::NotFound { .. } => "OMP_NOT_FOUND",
        SearchError::PermissionDenied { .. } => "OMP_PERMISSION_DENIED",
        SearchError::Io { .. } => "OMP_IO",
        SearchError::Cancelled => return cancelled(timed_out_after),
        SearchError::InvalidOptions { .. } => omp_napi::INVALID_ARGUMENT,
    };
    NapiError::new(code, err.to_string())
}

pub fn cancelled(timed_out_after: Option<u64>) -> NapiError {
    let message = match timed_out_after {
        Some(ms) => format!("search timed out after {ms} ms"),
        None => "search cancelled".to_string(),
    };
    NapiError::new(CANCELLED, message)
}

#[cfg(test)]
mod tests {
    use super::search_error;
    use omp_search::SearchError;
    use std::path::PathBuf;

    #[test]
    fn codes_follow_the_contract() {
        let cases = [
            (SearchError::BadPattern { pattern: "(".into(), message: "unclosed group".into() }, "OMP_BAD_PATTERN"),
            (SearchError::BadGlob { glob: "[".into(), message: "unclosed class".into() }, "OMP_BAD_GLOB"),
            (SearchError::UnknownType { name: "rustt".into() }, "OMP_UNKNOWN_TYPE"),
            (SearchError::NotFound { path: PathBuf::from("/nope") }, "OMP_NOT_FOUND"),
            (SearchError::PermissionDenied { path: PathBuf::from("/root") }, "OMP_PERMISSION_DENIED"),
            (SearchError::Io { path: PathBuf::from("/x"), message: "EIO".into() }, "OMP_IO"),
            (SearchError::Cancelled, "OMP_CANCELLED"),
            (SearchError::InvalidOptions { message: "limit must be positive".into() }, "OMP_INVALID_OPTIONS"),
        ];
        for (err, code) in cases {
            assert_eq!(search_error(err, None).code(), code);
        }
    }

    #[test]
    fn cancellation_says_why() {
        assert_eq!(search_error(SearchError::Cancelled, None).message(), "search cancelled");
        assert_eq!(search_error(SearchError::Cancelled, Some(250)).message(), "search timed out after 250 ms");
    }
}
