//! Reading a results JSONL file a slice at a time. A million results is about a hundred
//! megabytes and several seconds of parsing: read in one step it froze the tab with no sign
//! of life (issue 17.5). The page reads a slice of lines, shows how far it got, and yields to
//! the event loop before the next; the outcome is exactly [`super::io::from_jsonl`]'s, which
//! is this reader run to the end in one go.

use super::ranges::range_problem;
use super::record::ItemResult;

/// Where a reading of one text stands, with what it has read so far.
#[derive(Debug, Default)]
pub struct JsonlReader {
    /// Byte offset of the next line, and that line's number (from 1).
    pos: usize,
    line: usize,
    pub results: Vec<ItemResult>,
    /// `Line n: reason` for each line that is not a result.
    pub problems: Vec<String>,
}

impl JsonlReader {
    /// Reads at most `max_lines` more lines of `text` (always the same text); true once the
    /// whole text is read.
    pub fn read(&mut self, text: &str, max_lines: usize) -> bool {
        for _ in 0..max_lines {
            if self.pos >= text.len() {
                return true;
            }
            let rest = &text[self.pos..];
            let end = rest.find('\n').unwrap_or(rest.len());
            self.pos += (end + 1).min(rest.len());
            self.line += 1;
            let line = rest[..end].strip_suffix('\r').unwrap_or(&rest[..end]);
            self.line_read(line);
        }
        self.pos >= text.len()
    }

    /// Goes on with the next piece of a file read in pieces, each ending at a line's end (or
    /// the file's): line numbers go on from the last piece's.
    pub fn next_piece(&mut self) {
        self.pos = 0;
    }

    /// Reads the file's next line (without its line break), for a reader that goes a line at a
    /// time (`hj`'s, `native::disk::each_line`): the same as reading the file whole.
    pub fn read_line(&mut self, line: &str) {
        self.line += 1;
        self.line_read(line);
    }

    /// Bytes of the current text read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The share of `text` read, 0…1.
    pub fn fraction(&self, text: &str) -> f64 {
        if text.is_empty() {
            1.0
        } else {
            self.pos.min(text.len()) as f64 / text.len() as f64
        }
    }

    fn line_read(&mut self, line: &str) {
        let line = line.trim().trim_start_matches('\u{feff}');
        if line.is_empty() {
            return;
        }
        let n = self.line;
        match serde_json::from_str::<ItemResult>(line) {
            Ok(r) if r.id.is_empty() => self
                .problems
                .push(format!("Line {n}: the result has no id.")),
            Ok(r) => match range_problem(&r) {
                Some(why) => self.problems.push(format!("Line {n}: {why}.")),
                None => {
                    // Kept, with a sentence: its scores stand, its judge is not taken for another.
                    let provider = r.kept.as_ref().map_or("", |k| k.provider.as_str());
                    if let Some(why) = crate::providers::Protocol::unknown(provider) {
                        self.problems.push(format!("Line {n}: {why}"));
                    }
                    self.results.push(r)
                }
            },
            Err(e) => self.problems.push(format!("Line {n}: not a result ({e}).")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reading as it was done in one step before (`str::lines`), as the reference.
    fn in_one_step(text: &str) -> (Vec<ItemResult>, Vec<String>) {
        let mut r = JsonlReader::default();
        for line in text.lines() {
            r.read_line(line);
        }
        (r.results, r.problems)
    }

    #[test]
    fn a_result_of_an_unknown_provider_is_kept_with_a_sentence() {
        let text = concat!(
            r#"{"id":"a","metric":"fleur","score":0.5,"kept":{"model":"m","provider":"mistral"}}"#,
            "\n",
            r#"{"id":"b","metric":"fleur","score":0.5,"kept":{"model":"m","provider":"custom"}}"#,
            "\n",
            r#"{"id":"c","metric":"fleur","score":0.5,"kept":{"model":"m","provider":"gemini"}}"#,
        );
        let (results, problems) = in_one_step(text);
        assert_eq!(results.len(), 3, "its scores stand");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with("Line 1: ") && problems[0].contains("\u{201c}mistral\u{201d}"),
            "{problems:?}"
        );
    }

    #[test]
    fn reading_in_slices_gives_what_one_step_gives_on_random_files() {
        let lines = [
            r#"{"id":"a","metric":"fleur","score":0.5,"human":{"overall":[3]}}"#,
            r#"{"id":"b","metric":"fleur","score":0.25}"#,
            "",
            "   ",
            "\u{feff}{\"id\":\"c\",\"metric\":\"fleur\",\"score\":1.0}",
            r#"{"id":"","metric":"fleur"}"#,
            "not json",
            r#"{"id":"d","metric":"fleur","score":99}"#,
            r#"{"id":"é","metric":"fleur","text":"a\nb ☃","score":0.1}"#,
        ];
        let mut rng = crate::meta::resample::Rng::new(11);
        let mut next = |m: u64| rng.below(m as usize) as u64;
        for _ in 0..200 {
            let n = next(30) as usize;
            let mut text = String::new();
            for _ in 0..n {
                text.push_str(lines[next(lines.len() as u64) as usize]);
                text.push_str(if next(3) == 0 { "\r\n" } else { "\n" });
            }
            if next(2) == 0 {
                text.pop(); // no newline at the end
            }
            let expected = in_one_step(&text);
            let slice = 1 + next(4) as usize;
            let mut r = JsonlReader::default();
            let mut last = 0.0;
            while !r.read(&text, slice) {
                assert!(r.fraction(&text) >= last && r.fraction(&text) < 1.0);
                last = r.fraction(&text);
            }
            assert_eq!(r.fraction(&text), 1.0);
            assert_eq!((r.results, r.problems), expected, "{text:?}");
        }
        assert!(
            !in_one_step(&lines.join("\n")).1.is_empty(),
            "the bad lines are named"
        );
    }

    #[test]
    fn a_file_read_in_pieces_cut_at_line_ends_reads_as_a_whole() {
        let text = "{\"id\":\"a\",\"metric\":\"fleur\",\"score\":0.5}\nbad\n\n{\"id\":\"b\",\"metric\":\"fleur\"}\r\nworse";
        let whole = in_one_step(text);
        let ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
        for cuts in [vec![], vec![ends[0]], ends.clone()] {
            let mut r = JsonlReader::default();
            let mut from = 0;
            for end in cuts.iter().copied().chain([text.len()]) {
                r.next_piece();
                while !r.read(&text[from..end], 1) {}
                assert_eq!(r.position(), end - from);
                from = end;
            }
            assert_eq!((r.results, r.problems), whole, "cut at {cuts:?}");
        }
    }
}
