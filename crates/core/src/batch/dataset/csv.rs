//! CSV datasets (RFC 4180, header row required; comma, semicolon or tab).

use super::fields::*;
use super::rows::Rows;
use super::{too_many_rows, MAX_ROWS};

/// One CSV record.
struct Record {
    /// Physical line where it starts.
    line: usize,
    fields: Vec<String>,
    error: Option<String>,
}

impl Record {
    fn is_blank(&self) -> bool {
        self.error.is_none() && self.fields.iter().all(|f| f.trim().is_empty())
    }
}

/// An RFC 4180 reader: quoted fields with doubled quotes, delimiters and line breaks inside
/// quotes, CRLF, LF or lone CR line ends. Delimiters and quotes are ASCII, so every slice
/// boundary is a character boundary.
struct CsvReader<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    delim: u8,
}

impl<'a> CsvReader<'a> {
    fn new(text: &'a str, delim: u8) -> CsvReader<'a> {
        CsvReader {
            text,
            pos: 0,
            line: 1,
            delim,
        }
    }

    fn byte(&self, at: usize) -> Option<u8> {
        self.text.as_bytes().get(at).copied()
    }

    /// Consumes a line end at `pos` if there is one.
    fn line_end(&mut self) -> bool {
        match self.byte(self.pos) {
            Some(b'\r') => {
                self.pos += 1;
                if self.byte(self.pos) == Some(b'\n') {
                    self.pos += 1;
                }
                self.line += 1;
                true
            }
            Some(b'\n') => {
                self.pos += 1;
                self.line += 1;
                true
            }
            _ => false,
        }
    }

    /// Scans an unquoted run up to a delimiter, a line end or the end.
    fn unquoted(&mut self) -> &'a str {
        let start = self.pos;
        while let Some(b) = self.byte(self.pos) {
            if b == self.delim || b == b'\r' || b == b'\n' {
                break;
            }
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    /// A quoted field; `pos` is on the opening quote. `Err` when never closed.
    fn quoted(&mut self) -> Result<String, ()> {
        self.pos += 1;
        let mut out = String::new();
        let mut start = self.pos;
        loop {
            match self.byte(self.pos) {
                None => return Err(()),
                Some(b'"') => {
                    if self.byte(self.pos + 1) == Some(b'"') {
                        out.push_str(&self.text[start..=self.pos]);
                        self.pos += 2;
                        start = self.pos;
                    } else {
                        out.push_str(&self.text[start..self.pos]);
                        self.pos += 1;
                        break;
                    }
                }
                Some(b'\r') => {
                    if self.byte(self.pos + 1) != Some(b'\n') {
                        self.line += 1;
                    }
                    self.pos += 1;
                }
                Some(b'\n') => {
                    self.line += 1;
                    self.pos += 1;
                }
                Some(_) => self.pos += 1,
            }
        }
        if out.contains('\r') {
            out = out.replace("\r\n", "\n").replace('\r', "\n");
        }
        Ok(out)
    }
}

impl Iterator for CsvReader<'_> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        if self.pos >= self.text.len() {
            return None;
        }
        let line = self.line;
        let mut fields = Vec::new();
        let mut error = None;
        loop {
            if self.byte(self.pos) == Some(b'"') {
                match self.quoted() {
                    Ok(mut field) => {
                        match self.byte(self.pos) {
                            None | Some(b'\r') | Some(b'\n') => {}
                            Some(b) if b == self.delim => {}
                            Some(_) => {
                                error.get_or_insert_with(|| {
                                    format!(
                                        "field {} has text after its closing quote (a quote \
                                         inside a quoted field must be doubled: \"\")",
                                        fields.len() + 1
                                    )
                                });
                                field.push_str(self.unquoted());
                            }
                        }
                        fields.push(field);
                    }
                    Err(()) => {
                        fields.push(String::new());
                        error = Some(format!(
                            "field {} opens a quote that is never closed, so the rest of the \
                             file was read as part of it",
                            fields.len()
                        ));
                        return Some(Record {
                            line,
                            fields,
                            error,
                        });
                    }
                }
            } else {
                fields.push(self.unquoted().to_string());
            }
            match self.byte(self.pos) {
                Some(b) if b == self.delim => self.pos += 1,
                _ => {
                    self.line_end();
                    break;
                }
            }
        }
        Some(Record {
            line,
            fields,
            error,
        })
    }
}

/// The delimiter: the most frequent of `,` `;` tab outside quotes on the first line (`,` on a
/// tie or when none).
pub(super) fn detect_delimiter(text: &str) -> u8 {
    let mut counts = [0usize; 3];
    let mut in_quotes = false;
    for b in text.bytes() {
        match b {
            b'"' => in_quotes = !in_quotes,
            b'\n' | b'\r' if !in_quotes => break,
            b',' if !in_quotes => counts[0] += 1,
            b';' if !in_quotes => counts[1] += 1,
            b'\t' if !in_quotes => counts[2] += 1,
            _ => {}
        }
    }
    let delims = [b',', b';', b'\t'];
    let mut best = 0;
    for i in 1..3 {
        if counts[i] > counts[best] {
            best = i;
        }
    }
    delims[best]
}

/// The non-blank records of a CSV text (separator detected as for datasets), each with the
/// line it starts on. Used to re-import results files exported as CSV.
pub fn csv_records(text: &str) -> Vec<(usize, Vec<String>)> {
    CsvRecords::new(text).collect()
}

/// [`csv_records`] one record at a time, saying how far through the text it is: a caller on
/// the page reads a slice of records, shows the share, and yields.
pub struct CsvRecords<'a> {
    reader: CsvReader<'a>,
}

impl<'a> CsvRecords<'a> {
    pub fn new(text: &'a str) -> CsvRecords<'a> {
        let text = text.trim_start_matches('\u{feff}');
        let delim = detect_delimiter(text.trim_start_matches(['\r', '\n']));
        CsvRecords {
            reader: CsvReader::new(text, delim),
        }
    }

    /// The share of the text read so far (0 to 1; 1 for an empty text).
    pub fn share(&self) -> f64 {
        let len = self.reader.text.len();
        if len == 0 {
            1.0
        } else {
            self.reader.pos.min(len) as f64 / len as f64
        }
    }
}

impl Iterator for CsvRecords<'_> {
    type Item = (usize, Vec<String>);

    fn next(&mut self) -> Option<(usize, Vec<String>)> {
        self.reader
            .by_ref()
            .find(|r| !r.is_blank())
            .map(|r| (r.line, r.fields))
    }
}

pub(super) fn csv(text: &str, rows: &mut Rows) {
    let delim = detect_delimiter(text.trim_start_matches(['\r', '\n']));
    let mut records = CsvReader::new(text, delim);
    let Some(columns) = header(&mut records, rows) else {
        return;
    };
    let mut count = 0usize;
    for record in records {
        if record.is_blank() {
            continue;
        }
        count += 1;
        if count > MAX_ROWS {
            rows.refuse(record.line, too_many_rows());
            return;
        }
        if let Some(e) = &record.error {
            rows.problem(record.line, std::slice::from_ref(e));
            continue;
        }
        if record.fields.len() != columns.len() {
            rows.problem(record.line, &[field_count(&record, columns.len(), delim)]);
            continue;
        }
        let cells: Vec<(Field, Raw<'_>)> = columns
            .iter()
            .zip(&record.fields)
            .filter_map(|(f, v)| f.map(|f| (f, Raw::Csv(v.as_str()))))
            .collect();
        rows.row(record.line, &cells);
    }
}

/// Reads the header (the first non-blank record) into each column's field (`None`: ignored),
/// or refuses the file and returns `None`.
fn header(records: &mut CsvReader<'_>, rows: &mut Rows) -> Option<Vec<Option<Field>>> {
    let header = loop {
        match records.next() {
            None => {
                rows.refuse(0, "The file is empty.".to_string());
                return None;
            }
            Some(r) if r.is_blank() => continue,
            Some(r) => break r,
        }
    };
    if let Some(e) = header.error {
        rows.refuse(header.line, format!("The header row is malformed: {e}."));
        return None;
    }
    let mut columns: Vec<Option<Field>> = Vec::with_capacity(header.fields.len());
    let mut seen: Vec<Field> = Vec::new();
    for name in &header.fields {
        let lower = name.trim().to_ascii_lowercase();
        let field = Field::from_name(&lower);
        match field {
            Some(f) if seen.contains(&f) => {
                rows.refuse(
                    header.line,
                    format!(
                        "Column \u{201c}{}\u{201d} appears twice in the header.",
                        name.trim()
                    ),
                );
                return None;
            }
            Some(f) => seen.push(f),
            // A nameless column (a spreadsheet's or pandas' row index) is dropped silently.
            None if lower.is_empty() => {}
            None => rows.ignore(name.trim(), header.line),
        }
        columns.push(field);
    }
    for (required, f) in [("id", Field::Id), ("text", Field::Text)] {
        if !seen.contains(&f) {
            rows.refuse(
                header.line,
                format!(
                    "The header row has no \u{201c}{required}\u{201d} column. The first line must \
                     name the columns, e.g. id,task,text,image (found: {}).",
                    header
                        .fields
                        .iter()
                        .take(10)
                        .map(|f| quote(f.trim()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            return None;
        }
    }
    Some(columns)
}

/// The sentence for a row whose field count differs from the header's.
fn field_count(record: &Record, columns: usize, delim: u8) -> String {
    format!(
        "the row has {} field{} but the header has {} column{} (a text containing \
         {} or a line break must be in double quotes)",
        record.fields.len(),
        if record.fields.len() == 1 { "" } else { "s" },
        columns,
        if columns == 1 { "" } else { "s" },
        match delim {
            b';' => "a semicolon",
            b'\t' => "a tab",
            _ => "a comma",
        }
    )
}
