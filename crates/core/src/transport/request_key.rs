//! Cache keys for provider requests: two independent 64-bit FNV-1a hashes over everything
//! that decides the answer (protocol, URL, model and body: prompt, image bytes, parameters),
//! never over the headers, so the API key is not part of the key and changing it does not
//! throw the cache away. 128 bits make an accidental collision among a user's cached answers
//! vanishingly unlikely; this is not a defence against someone forging entries in their own
//! browser storage.

use crate::providers::{HttpRequest, Protocol};

const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv1a(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut h = seed;
    for part in parts {
        // Length-prefix each part so ("ab","c") and ("a","bc") differ.
        for b in (part.len() as u64).to_le_bytes().iter().chain(part.iter()) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(FNV_PRIME);
        }
    }
    h
}

/// A 32-hex-digit key for `request` sent with `protocol`.
pub fn request_key(protocol: Protocol, request: &HttpRequest) -> String {
    let parts: [&[u8]; 3] = [
        protocol.id().as_bytes(),
        request.url.as_bytes(),
        request.body.as_bytes(),
    ];
    let a = fnv1a(0xcbf2_9ce4_8422_2325, &parts);
    let b = fnv1a(0x6c62_272e_07bb_0142, &parts);
    format!("{a:016x}{b:016x}")
}

/// `key` for an answer of the in-page engine, which the request alone does not decide: its
/// model is always "local". `engine` names the loaded files and threads (`None`: nothing is
/// loaded, so the key matches no stored answer and the request is refused as it should be).
pub fn with_engine(key: &str, engine: Option<&str>) -> String {
    let engine = engine.unwrap_or("\u{0}none");
    let tag = fnv1a(0xcbf2_9ce4_8422_2325, &[engine.as_bytes()]);
    format!("{key}:engine-{tag:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::Method;

    fn req(url: &str, key: &str, body: &str) -> HttpRequest {
        HttpRequest {
            method: Method::Post,
            url: url.into(),
            headers: vec![("Authorization".into(), format!("Bearer {key}"))],
            body: body.into(),
        }
    }

    #[test]
    fn same_request_same_key_whatever_the_api_key() {
        let a = request_key(Protocol::OpenAi, &req("u", "sk-1", "{}"));
        let b = request_key(Protocol::OpenAi, &req("u", "sk-2", "{}"));
        assert_eq!(a, b);
        assert_eq!(a.len(), 32);
        assert!(!a.contains("sk-"));
    }

    #[test]
    fn anything_that_changes_the_answer_changes_the_key() {
        let base = request_key(Protocol::OpenAi, &req("u", "k", r#"{"a":1}"#));
        assert_ne!(
            base,
            request_key(Protocol::OpenAi, &req("u2", "k", r#"{"a":1}"#))
        );
        assert_ne!(
            base,
            request_key(Protocol::OpenAi, &req("u", "k", r#"{"a":2}"#))
        );
        assert_ne!(
            base,
            request_key(Protocol::Gemini, &req("u", "k", r#"{"a":1}"#))
        );
        // Part boundaries matter.
        assert_ne!(
            request_key(Protocol::OpenAi, &req("ab", "k", "c")),
            request_key(Protocol::OpenAi, &req("a", "k", "bc"))
        );
    }

    #[test]
    fn the_in_page_engine_keys_its_answers_by_what_is_loaded() {
        let key = request_key(Protocol::OpenAi, &req("u", "", "{}"));
        let with = |e| with_engine(&key, e);
        let model = "url:http://h/m.gguf||threads:1";
        let with_projector = "url:http://h/m.gguf|http://h/p.gguf|threads:1";
        let two_threads = "url:http://h/m.gguf||threads:2";
        assert_eq!(with(Some(model)), with(Some(model)));
        assert!(with(Some(model)).starts_with(&key));
        for other in [Some(with_projector), Some(two_threads), None] {
            assert_ne!(with(Some(model)), with(other), "{other:?}");
        }
        assert!(
            !with(Some(model)).contains("h/m.gguf"),
            "hashed, not written out"
        );
    }
}
