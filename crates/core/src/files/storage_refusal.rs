//! Why a browser would not keep what the page asked IndexedDB to store, in words, from the
//! `DOMException` it gave (`name`, `message`). Three causes read differently and call for
//! different remedies: storage that is only temporary (Safari's private windows, WebKit's
//! ephemeral sessions: they keep no files at all), a full quota (free some space), and any
//! other refusal (said with the browser's own words).

/// The cause of a refused write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The storage is temporary (a private window) and does not take files.
    Temporary,
    /// The site's storage quota is used up.
    Full,
    /// Anything else the browser said no to.
    Refused,
}

/// Tells the causes apart. WebKit refuses a Blob or File in temporary storage with an
/// `UnknownError` whose message names "Blob/File" ("Error preparing Blob/File data to be stored
/// in object store"); a quota is `QuotaExceededError` everywhere (Firefox's legacy
/// `NS_ERROR_DOM_QUOTA_REACHED` too).
pub fn classify(name: &str, message: &str) -> Refusal {
    if name == "QuotaExceededError" || message.contains("QUOTA_REACHED") {
        return Refusal::Full;
    }
    let lower = message.to_ascii_lowercase();
    if lower.contains("blob") || lower.contains("private brows") || lower.contains("ephemeral") {
        return Refusal::Temporary;
    }
    Refusal::Refused
}

/// The phrase, with its remedy, for a sentence "This browser did not store X (…)".
pub fn phrase(name: &str, message: &str) -> String {
    match classify(name, message) {
        Refusal::Temporary => "its storage here is temporary, as in a private window, and keeps \
                               no files: open the page in a normal window to keep them"
            .into(),
        Refusal::Full => {
            "its storage for this site is full: free some, then choose the files again".into()
        }
        Refusal::Refused => {
            let said = [name.trim(), message.trim()]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(": ");
            if said.is_empty() {
                "it refused the write".into()
            } else {
                format!("it refused the write: {said}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webkit_temporary_storage_is_not_called_full() {
        let webkit = "Error preparing Blob/File data to be stored in object store";
        assert_eq!(classify("UnknownError", webkit), Refusal::Temporary);
        let s = phrase("UnknownError", webkit);
        assert!(
            s.contains("temporary") && s.contains("private window"),
            "{s}"
        );
        assert!(!s.contains("full"), "{s}");
    }

    #[test]
    fn a_quota_is_full_and_anything_else_is_said_as_given() {
        assert_eq!(
            classify("QuotaExceededError", "The quota has been exceeded."),
            Refusal::Full
        );
        assert_eq!(
            classify("UnknownError", "NS_ERROR_DOM_QUOTA_REACHED"),
            Refusal::Full
        );
        assert!(phrase("QuotaExceededError", "").starts_with("its storage for this site is full"));
        assert_eq!(
            classify("AbortError", "The transaction was aborted"),
            Refusal::Refused
        );
        assert_eq!(
            phrase("ConstraintError", "Key already exists"),
            "it refused the write: ConstraintError: Key already exists"
        );
        assert_eq!(phrase("", " "), "it refused the write");
    }
}
