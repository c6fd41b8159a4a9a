//! The elements of one JSON array in a file of any size, each handed over as its own bytes:
//! the file's top-level array, or the array under one key of its top-level object (a Chrome
//! trace's `traceEvents`). The input is read in blocks; memory holds a block and the element
//! being read, not the file. Each element is then parsed on its own from a slice (serde_json's
//! fastest reader), which is why this is not done through `serde_json::Deserializer::from_reader`
//! (a fifth of a 1 GB trace's time went to its byte-by-byte reading of strings).
//!
//! Written here because no maintained crate hands out raw elements of a streamed array: this
//! only finds where each value ends (strings, escapes, nesting); parsing is serde_json's.

use std::io::Read;

/// How much is read at a time.
const BLOCK_BYTES: usize = 1 << 20;

/// Why the elements could not be read.
#[derive(Debug)]
pub(crate) enum ArrayError<E> {
    Io(std::io::Error),
    /// Not JSON of the expected shape (what was expected, and where).
    Shape(String),
    /// An element's own error.
    Element(E),
}

/// A block reader that keeps what is not yet consumed.
struct Blocks<R> {
    input: R,
    buffer: Vec<u8>,
    /// Consumed up to here.
    at: usize,
    /// Bytes consumed before `buffer[0]`.
    offset: u64,
    ended: bool,
}

impl<R: Read> Blocks<R> {
    /// Reads one more block; false at the end of the input.
    fn more(&mut self) -> std::io::Result<bool> {
        if self.ended {
            return Ok(false);
        }
        if self.at > 0 {
            self.buffer.drain(..self.at);
            self.offset += self.at as u64;
            self.at = 0;
        }
        let old = self.buffer.len();
        self.buffer.resize(old + BLOCK_BYTES, 0);
        let read = loop {
            match self.input.read(&mut self.buffer[old..]) {
                Ok(read) => break read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    self.buffer.truncate(old);
                    return Err(error);
                }
            }
        };
        self.buffer.truncate(old + read);
        self.ended = read == 0;
        Ok(read > 0)
    }

    /// The next byte that is not whitespace, not consumed; `None` at the end.
    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        loop {
            while let Some(&byte) = self.buffer.get(self.at) {
                if !byte.is_ascii_whitespace() {
                    return Ok(Some(byte));
                }
                self.at += 1;
            }
            if !self.more()? {
                return Ok(None);
            }
        }
    }

    /// Where the value starting at `self.at` ends, reading more as needed; `None` when the
    /// input ends inside it.
    fn value_end(&mut self) -> std::io::Result<Option<usize>> {
        loop {
            if let Some(end) = value_end(&self.buffer[self.at..]) {
                return Ok(Some(self.at + end));
            }
            if !self.more()? {
                return Ok(None);
            }
        }
    }

    fn position(&self) -> u64 {
        self.offset + self.at as u64
    }
}

/// Where the string whose contents start `bytes` ends: the index of its closing quote.
fn string_end(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    loop {
        i += memchr::memchr2(b'"', b'\\', &bytes[i..])?;
        if bytes[i] == b'"' {
            return Some(i);
        }
        // An escape: the next byte is not the end, whatever it is.
        i += 2;
        if i > bytes.len() {
            return None;
        }
    }
}

/// The length of the JSON value at the start of `bytes` (which starts with it, no whitespace),
/// or `None` if `bytes` ends first. Only finds the end: whether the value is valid is for its
/// parser to say.
fn value_end(bytes: &[u8]) -> Option<usize> {
    let first = *bytes.first()?;
    match first {
        b'"' => Some(1 + string_end(&bytes[1..])? + 1),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = 0;
            while i < bytes.len() {
                match bytes[i] {
                    // A string: to its closing quote, found with memchr (strings are most of a
                    // trace's bytes).
                    b'"' => i += 1 + string_end(&bytes[i + 1..])?,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        // A number, true, false or null: up to the next delimiter (which must follow it).
        _ => bytes
            .iter()
            .position(|&b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace()),
    }
}

/// Calls `each` with every element of the array: the top-level value if it is an array, else
/// the value of `key` in the top-level object. Returns whether the array was found.
pub(crate) fn for_each_element<R: Read, E>(
    input: R,
    key: &str,
    mut each: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<bool, ArrayError<E>> {
    let mut blocks = Blocks {
        input,
        buffer: Vec::with_capacity(BLOCK_BYTES * 2),
        at: 0,
        offset: 0,
        ended: false,
    };
    let shape = |blocks: &Blocks<R>, expected: &str| {
        ArrayError::Shape(format!("expected {expected} at byte {}", blocks.position()))
    };
    let expect = |blocks: &mut Blocks<R>, byte: u8, what: &str| -> Result<(), ArrayError<E>> {
        match blocks.peek().map_err(ArrayError::Io)? {
            Some(found) if found == byte => {
                blocks.at += 1;
                Ok(())
            }
            _ => Err(shape(blocks, what)),
        }
    };
    let read_array = |blocks: &mut Blocks<R>, each: &mut dyn FnMut(&[u8]) -> Result<(), E>| {
        // After '['.
        if blocks.peek().map_err(ArrayError::Io)? == Some(b']') {
            blocks.at += 1;
            return Ok(());
        }
        loop {
            blocks.peek().map_err(ArrayError::Io)?;
            let end = blocks.value_end().map_err(ArrayError::Io)?.ok_or_else(|| {
                shape(blocks, "the rest of an element (the file ends inside one)")
            })?;
            each(&blocks.buffer[blocks.at..end]).map_err(ArrayError::Element)?;
            blocks.at = end;
            match blocks.peek().map_err(ArrayError::Io)? {
                Some(b',') => blocks.at += 1,
                Some(b']') => {
                    blocks.at += 1;
                    return Ok(());
                }
                _ => return Err(shape(blocks, "',' or ']' after an element")),
            }
        }
    };
    match blocks.peek().map_err(ArrayError::Io)? {
        Some(b'[') => {
            blocks.at += 1;
            read_array(&mut blocks, &mut each)?;
            Ok(true)
        }
        Some(b'{') => {
            blocks.at += 1;
            let mut found = false;
            if blocks.peek().map_err(ArrayError::Io)? == Some(b'}') {
                return Ok(false);
            }
            loop {
                if blocks.peek().map_err(ArrayError::Io)? != Some(b'"') {
                    return Err(shape(&blocks, "a key"));
                }
                let end = blocks
                    .value_end()
                    .map_err(ArrayError::Io)?
                    .ok_or_else(|| shape(&blocks, "the end of a key"))?;
                let is_key = blocks.buffer[blocks.at + 1..end - 1] == *key.as_bytes();
                blocks.at = end;
                expect(&mut blocks, b':', "':' after a key")?;
                if is_key && blocks.peek().map_err(ArrayError::Io)? == Some(b'[') {
                    blocks.at += 1;
                    read_array(&mut blocks, &mut each)?;
                    found = true;
                } else {
                    blocks.peek().map_err(ArrayError::Io)?;
                    let end = blocks
                        .value_end()
                        .map_err(ArrayError::Io)?
                        .ok_or_else(|| shape(&blocks, "the end of a value"))?;
                    blocks.at = end;
                }
                match blocks.peek().map_err(ArrayError::Io)? {
                    Some(b',') => blocks.at += 1,
                    Some(b'}') => return Ok(found),
                    _ => return Err(shape(&blocks, "',' or '}' after a value")),
                }
            }
        }
        _ => Err(shape(&blocks, "a JSON array or object")),
    }
}

/// A JSON document read in blocks, walked by its reader: objects key by key, arrays element by
/// element, and each value it does not walk into handed over as its own bytes. For files whose
/// bulk is long arrays of small values inside objects (a speedscope profile's samples), which
/// [`for_each_element`] cannot reach: memory holds a block and the value being read.
pub(crate) struct Cursor<R> {
    blocks: Blocks<R>,
    /// The object or array just stepped into has had no member yet (no ',' before the next).
    fresh: bool,
}

/// Why a [`Cursor`] stopped: the input failed, or it is not the JSON expected (what, and where).
#[derive(Debug)]
pub(crate) enum CursorError {
    Io(std::io::Error),
    Shape(String),
}

impl<R: Read> Cursor<R> {
    pub(crate) fn new(input: R) -> Self {
        Self {
            blocks: Blocks {
                input,
                buffer: Vec::with_capacity(BLOCK_BYTES * 2),
                at: 0,
                offset: 0,
                ended: false,
            },
            fresh: false,
        }
    }

    fn shape(&self, expected: &str) -> CursorError {
        CursorError::Shape(format!(
            "expected {expected} at byte {}",
            self.blocks.position()
        ))
    }

    fn peek(&mut self) -> Result<Option<u8>, CursorError> {
        self.blocks.peek().map_err(CursorError::Io)
    }

    /// Consumes `byte` (after whitespace), or says what was expected.
    fn expect(&mut self, byte: u8, what: &str) -> Result<(), CursorError> {
        if self.peek()? == Some(byte) {
            self.blocks.at += 1;
            Ok(())
        } else {
            Err(self.shape(what))
        }
    }

    /// Whether the next value is `null` (consumed if so).
    pub(crate) fn null(&mut self) -> Result<bool, CursorError> {
        if self.peek()? != Some(b'n') {
            return Ok(false);
        }
        let value = self.value()?;
        if value == b"null" {
            Ok(true)
        } else {
            Err(self.shape("a JSON value"))
        }
    }

    /// Steps into an object: its keys follow through [`Self::next_key`].
    pub(crate) fn begin_object(&mut self) -> Result<(), CursorError> {
        self.expect(b'{', "an object")?;
        self.fresh = true;
        Ok(())
    }

    /// The object's next key, its value to be read next; `None` after the object's last value
    /// (its `}` consumed).
    pub(crate) fn next_key(&mut self) -> Result<Option<String>, CursorError> {
        let first = std::mem::replace(&mut self.fresh, false);
        match self.peek()? {
            Some(b'}') => {
                self.blocks.at += 1;
                return Ok(None);
            }
            Some(b',') if !first => self.blocks.at += 1,
            _ if first => {}
            _ => return Err(self.shape("',' or '}' after a value")),
        }
        if self.peek()? != Some(b'"') {
            return Err(self.shape("a key"));
        }
        let key = self.value()?;
        let key = serde_json::from_slice::<String>(key).map_err(|_| self.shape("a key"))?;
        self.expect(b':', "':' after a key")?;
        Ok(Some(key))
    }

    /// Steps into an array: its elements follow through [`Self::next_element`].
    pub(crate) fn begin_array(&mut self) -> Result<(), CursorError> {
        self.expect(b'[', "an array")?;
        self.fresh = true;
        Ok(())
    }

    /// Whether another element follows (to be read next); false after the last (its `]`
    /// consumed).
    pub(crate) fn next_element(&mut self) -> Result<bool, CursorError> {
        let first = std::mem::replace(&mut self.fresh, false);
        match self.peek()? {
            Some(b']') => {
                self.blocks.at += 1;
                Ok(false)
            }
            Some(b',') if !first => {
                self.blocks.at += 1;
                Ok(true)
            }
            Some(_) if first => Ok(true),
            _ => Err(self.shape("',' or ']' after an element")),
        }
    }

    /// The next value's bytes, consumed (whole, however many blocks it spans; meant for small
    /// values: a value is searched for its end again from its start after each block).
    pub(crate) fn value(&mut self) -> Result<&[u8], CursorError> {
        if self.peek()?.is_none() {
            return Err(self.shape("a value (the file ends)"));
        }
        let end = self
            .blocks
            .value_end()
            .map_err(CursorError::Io)?
            .ok_or_else(|| self.shape("the rest of a value (the file ends inside one)"))?;
        // (Reading more blocks moves the value to the buffer's start: `at` follows it.)
        let start = self.blocks.at;
        self.blocks.at = end;
        Ok(&self.blocks.buffer[start..end])
    }

    /// After the document's value: nothing but whitespace may follow.
    pub(crate) fn end(&mut self) -> Result<(), CursorError> {
        match self.peek()? {
            None => Ok(()),
            Some(_) => Err(self.shape("the end of the file")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elements(json: &str, key: &str) -> Result<(bool, Vec<String>), String> {
        let mut found = Vec::new();
        for_each_element(json.as_bytes(), key, |element| {
            found.push(String::from_utf8_lossy(element).into_owned());
            Ok::<(), ()>(())
        })
        .map(|present| (present, found))
        .map_err(|error| format!("{error:?}"))
    }

    #[test]
    fn elements_of_a_top_level_array_or_of_a_key_come_out_whole() {
        let json = r#" [ {"a":"x]}\"{","b":[1,{"c":2}]} , 3 ,"s\\" , null ] "#;
        assert_eq!(
            elements(json, "k").expect("reads"),
            (
                true,
                vec![
                    r#"{"a":"x]}\"{","b":[1,{"c":2}]}"#.to_owned(),
                    "3".to_owned(),
                    r#""s\\""#.to_owned(),
                    "null".to_owned()
                ]
            )
        );
        let object =
            r#"{"meta":{"traceEvents":[9]},"n":1.5e3,"traceEvents":[{"x":1},{"y":[]}],"z":"}"}"#;
        assert_eq!(
            elements(object, "traceEvents").expect("reads"),
            (
                true,
                vec![r#"{"x":1}"#.to_owned(), r#"{"y":[]}"#.to_owned()]
            )
        );
        assert!(
            !elements(r#"{"other":[1]}"#, "traceEvents")
                .expect("reads")
                .0
        );
        assert_eq!(elements("[]", "k").expect("reads"), (true, vec![]));
    }

    #[test]
    fn a_file_cut_short_or_of_another_shape_is_an_error() {
        assert!(elements(r#"[{"a":1},{"b":"#, "k").is_err());
        assert!(elements(r#"{"traceEvents":[1,2"#, "traceEvents").is_err());
        assert!(elements("\"text\"", "k").is_err());
        assert!(elements("[1 2]", "k").is_err());
    }

    #[test]
    fn elements_across_block_boundaries_are_whole() {
        let element = format!(r#"{{"name":"{}"}}"#, "x".repeat(3000));
        let json = format!("[{}]", vec![element.as_str(); 1000].join(","));
        let (_, found) = elements(&json, "k").expect("reads");
        assert_eq!(found.len(), 1000);
        assert!(found.iter().all(|e| *e == element));
    }
}
