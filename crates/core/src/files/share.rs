//! Share links: a result file (`crate::files::result_file`) carried in the URL fragment, deflated by
//! the browser (`CompressionStream("deflate-raw")`, in `web::compress`) and written here as
//! base64url. The fragment never reaches a server. What goes in is decided here: never the key
//! (exports never hold it) and never the base URL (not even without its credentials).

use serde_json::Value;

/// The fragment's prefix: `#r=<base64url of the deflated result file>`.
pub const PREFIX: &str = "#r=";

/// The longest link offered. Chromium and Firefox take far longer URLs, but chat apps, e-mail
/// clients and some servers cut them near 8–32 KB; past this the user gets a sentence instead.
pub const MAX_LINK_CHARS: usize = 16_000;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The result file as shared: the same document without `base_url`.
pub fn for_link(result_json: &str) -> String {
    match serde_json::from_str::<Value>(result_json) {
        Ok(Value::Object(mut obj)) => {
            obj.remove("base_url");
            // A comparison holds each candidate's own result, each with its base URL.
            if let Some(Value::Array(list)) = obj.get_mut("candidates") {
                for c in list {
                    if let Some(Value::Object(r)) = c.get_mut("result") {
                        r.remove("base_url");
                    }
                }
            }
            // Pretty, as exports are: one serialiser in the wasm, not two.
            serde_json::to_string_pretty(&Value::Object(obj))
                .unwrap_or_else(|_| result_json.to_string())
        }
        _ => result_json.to_string(),
    }
}

/// base64url without padding.
pub fn encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// Reads base64url (padding tolerated); `None` on any other character.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = ALPHABET.iter().position(|&a| a == c)? as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// The link for `page_url` (its own fragment dropped) carrying `deflated`, or the sentence
/// that says why there is none.
pub fn link(page_url: &str, deflated: &[u8]) -> Result<String, String> {
    let base = page_url.split('#').next().unwrap_or_default();
    let url = format!("{base}{PREFIX}{}", encode(deflated));
    if url.len() > MAX_LINK_CHARS {
        return Err(format!(
            "This result is too large for a link ({} characters; links stay under {}). Export \
             the JSON file and share that instead.",
            url.len(),
            MAX_LINK_CHARS
        ));
    }
    Ok(url)
}

/// The deflated result a fragment carries, if it is a share link's; one longer than any link
/// this page makes is refused before it is decoded (`crate::files::gate::fragment`).
pub fn payload(fragment: &str) -> Option<Result<Vec<u8>, String>> {
    let data = fragment.strip_prefix(PREFIX)?;
    if let Err(e) = crate::files::gate::fragment(data) {
        return Some(Err(e));
    }
    Some(
        decode(data).ok_or_else(|| "This share link is damaged: it could not be read.".to_string()),
    )
}

/// An iframe of the page showing the shared result, for a static site.
pub fn embed_code(link: &str) -> String {
    let src = link.replace('&', "&amp;").replace('"', "&quot;");
    format!(
        "<iframe src=\"{src}\" title=\"harmonic-judge result\" width=\"100%\" height=\"900\" \
         loading=\"lazy\" referrerpolicy=\"no-referrer\"></iframe>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips_every_length_and_refuses_other_characters() {
        let data: Vec<u8> = (0..=255u8).rev().collect();
        for n in 0..40 {
            let e = encode(&data[..n]);
            assert!(e.bytes().all(|b| ALPHABET.contains(&b)), "{e}");
            assert_eq!(decode(&e).unwrap(), &data[..n]);
        }
        assert_eq!(encode(b"hi?>"), "aGk_Pg");
        assert_eq!(decode("aGk_Pg==").unwrap(), b"hi?>");
        assert_eq!(
            decode("a+b/"),
            None,
            "standard base64's characters are not base64url"
        );
    }

    #[test]
    fn the_link_drops_the_base_url_and_its_own_old_fragment_and_says_when_too_large() {
        let doc =
            r#"{"metric":"harmonic_eval","base_url":"https://judge.example/v1","text":"A cat."}"#;
        let shared = for_link(doc);
        assert!(!shared.contains("judge.example") && shared.contains("A cat."));
        let url = link("https://site/app/#r=old", &[1, 2, 3]).unwrap();
        assert_eq!(url, "https://site/app/#r=AQID");
        assert_eq!(
            payload(&url[url.find('#').unwrap()..]),
            Some(Ok(vec![1, 2, 3]))
        );
        assert_eq!(payload("#other"), None);
        assert!(payload("#r=%%").unwrap().is_err());
        let bomb = format!("#r={}", "A".repeat(MAX_LINK_CHARS + 1));
        assert!(payload(&bomb)
            .unwrap()
            .unwrap_err()
            .contains("16,001 characters long"));
        let e = link("https://site/", &vec![0u8; MAX_LINK_CHARS]).unwrap_err();
        assert!(
            e.starts_with("This result is too large for a link") && e.ends_with('.'),
            "{e}"
        );
    }

    #[test]
    fn embed_code_is_an_iframe_with_the_link_escaped() {
        let code = embed_code("https://site/?a=1&b=\"x\"#r=AQID");
        assert!(
            code.starts_with("<iframe src=\"https://site/?a=1&amp;b=&quot;x&quot;#r=AQID\""),
            "{code}"
        );
        assert!(code.ends_with("></iframe>"));
    }
}
