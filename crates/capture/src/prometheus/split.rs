//! A query_range reply split as its bytes arrive: each object of `data.result` on its own, as
//! soon as it is whole, and the rest of the reply — the envelope with the series taken out —
//! kept for the end. A fleet's reply runs to megabytes of labels; read this way it is never
//! held whole.
//!
//! Only what it can place is taken out: the objects of the array under `"result"` in the
//! object under `"data"` of the reply's object. Anything else, a reply that is not JSON
//! included, stays in the rest byte for byte, for the envelope's decoder to read or name.

/// One open container of the reply.
enum Open {
    Object {
        /// The key most recently read (kept only near the top, where `data` and `result` are).
        key: Vec<u8>,
        /// The next string is a key.
        at_key: bool,
    },
    Array,
}

/// Feeds a reply's bytes through, hands out each series' bytes (see the module's words).
#[derive(Default)]
pub struct Splitter {
    rest: Vec<u8>,
    series: Vec<u8>,
    open: Vec<Open>,
    in_string: bool,
    escaped: bool,
    /// The depth at which the series being read opened, while one is.
    series_at: Option<usize>,
    /// A value of the result array stayed in the rest (one that is not a series, or could not
    /// be decoded): the next one to stay needs a comma.
    kept_in_result: bool,
    /// The next byte that is not white space, in the result array, starts a value.
    value_due: bool,
}

/// How deep the result array's objects are: the reply's object, `data`'s, the array.
const RESULT_DEPTH: usize = 3;

impl Splitter {
    /// Feeds `bytes`; `each` gets every series whole as it ends and says whether it took it
    /// (one it did not take is put back in the rest).
    pub fn feed(&mut self, bytes: &[u8], each: &mut dyn FnMut(&[u8]) -> bool) {
        for &b in bytes {
            self.byte(b, each);
        }
    }

    /// The reply without the series taken out; a series cut off mid-way is put back, so a
    /// reply that broke off does not read as whole.
    pub fn finish(mut self) -> Vec<u8> {
        if self.series_at.is_some() {
            let cut = std::mem::take(&mut self.series);
            self.keep(&cut);
        }
        self.rest
    }

    fn byte(&mut self, b: u8, each: &mut dyn FnMut(&[u8]) -> bool) {
        if self.series_at.is_some() {
            self.series.push(b);
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
            } else if let Some(Open::Object { key, at_key: true }) = self.near_top() {
                key.push(b);
            }
            if self.series_at.is_none() {
                self.rest.push(b);
            }
            return;
        }
        if self.series_at.is_none() && self.in_result() && !b.is_ascii_whitespace() {
            match b {
                // Commas between values are written as values stay (`keep`, `stays`).
                b',' => {
                    self.value_due = true;
                    return;
                }
                b']' => {}
                b'{' => {
                    self.value_due = false;
                    self.series_at = Some(self.open.len());
                    self.series.clear();
                    self.series.push(b);
                }
                _ if self.value_due => {
                    self.value_due = false;
                    self.stays();
                }
                _ => {}
            }
        }
        match b {
            b'"' => {
                self.in_string = true;
                if let Some(Open::Object { key, at_key: true }) = self.near_top() {
                    key.clear();
                }
            }
            b'{' => self.open.push(Open::Object {
                key: Vec::new(),
                at_key: true,
            }),
            b'[' => {
                self.open.push(Open::Array);
                self.value_due |= self.series_at.is_none() && self.in_result();
            }
            b'}' | b']' => {
                self.open.pop();
                if self.series_at == Some(self.open.len()) {
                    self.series_at = None;
                    let series = std::mem::take(&mut self.series);
                    if !each(&series) {
                        self.keep(&series);
                    }
                    self.series = series;
                    return;
                }
            }
            b':' => {
                if let Some(Open::Object { at_key, .. }) = self.open.last_mut() {
                    *at_key = false;
                }
            }
            b',' => {
                if let Some(Open::Object { at_key, .. }) = self.open.last_mut() {
                    *at_key = true;
                }
            }
            _ => {}
        }
        if self.series_at.is_none() {
            self.rest.push(b);
        }
    }

    /// The innermost open container, if it is near enough the top for its keys to matter.
    fn near_top(&mut self) -> Option<&mut Open> {
        if self.series_at.is_some() || self.open.len() >= RESULT_DEPTH {
            return None;
        }
        self.open.last_mut()
    }

    /// Directly inside the array of `data.result`.
    fn in_result(&self) -> bool {
        let key_is =
            |o: &Open, k: &[u8]| matches!(o, Open::Object { key, at_key: false } if key == k);
        self.open.len() == RESULT_DEPTH
            && key_is(&self.open[0], b"data")
            && key_is(&self.open[1], b"result")
            && matches!(self.open[2], Open::Array)
    }

    /// Puts a series back into the rest.
    fn keep(&mut self, series: &[u8]) {
        self.stays();
        self.rest.extend_from_slice(series);
    }

    /// A value of the result array stays in the rest: after a comma, if one stayed before it.
    fn stays(&mut self) {
        if self.kept_in_result {
            self.rest.push(b',');
        }
        self.kept_in_result = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The series taken and the rest, fed `chunk` bytes at a time.
    fn split(reply: &[u8], chunk: usize, take: impl Fn(&[u8]) -> bool) -> (Vec<String>, String) {
        let mut s = Splitter::default();
        let mut taken = Vec::new();
        for c in reply.chunks(chunk) {
            s.feed(c, &mut |series| {
                let t = take(series);
                if t {
                    taken.push(String::from_utf8_lossy(series).into_owned());
                }
                t
            });
        }
        (taken, String::from_utf8_lossy(&s.finish()).into_owned())
    }

    const REPLY: &[u8] = br#"{"status":"success","data":{"resultType":"matrix","result":[
        {"metric":{"__name__":"up","x":"a}]\",{"},"values":[[1,"1"]]} ,
        {"metric":{"data":"result"},"values":[]}],"analysis":{"result":[{"no":1}]}},"warnings":["w"]}"#;

    #[test]
    fn each_series_is_taken_whole_at_any_cut_and_the_rest_stays_json() {
        for chunk in [1, 2, 3, 7, 64, REPLY.len()] {
            let (taken, rest) = split(REPLY, chunk, |_| true);
            assert_eq!(
                taken,
                [
                    r#"{"metric":{"__name__":"up","x":"a}]\",{"},"values":[[1,"1"]]}"#,
                    r#"{"metric":{"data":"result"},"values":[]}"#
                ],
                "chunks of {chunk}"
            );
            let rest: serde_json::Value = serde_json::from_str(&rest).expect(&rest);
            assert_eq!(rest["data"]["result"], serde_json::json!([]));
            assert_eq!(rest["data"]["analysis"]["result"][0]["no"], 1);
            assert_eq!(rest["warnings"][0], "w");
        }
    }

    #[test]
    fn series_not_taken_stay_in_the_rest_as_json() {
        let (taken, rest) = split(REPLY, 5, |s| s.starts_with(br#"{"metric":{"data""#));
        assert_eq!(taken.len(), 1);
        let rest: serde_json::Value = serde_json::from_str(&rest).expect(&rest);
        assert_eq!(rest["data"]["result"][0]["metric"]["x"], "a}]\",{");
        assert_eq!(rest["data"]["result"].as_array().map(Vec::len), Some(1));
        let (taken, rest) = split(REPLY, 5, |_| false);
        assert!(taken.is_empty());
        let rest: serde_json::Value = serde_json::from_str(&rest).expect(&rest);
        assert_eq!(rest["data"]["result"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn what_is_not_a_reply_of_series_stays_whole() {
        for other in [
            &br#"{"status":"error","errorType":"timeout","error":"query timed out"}"#[..],
            b"<html><body>502 Bad Gateway</body></html>",
            br#"{"status":"success","data":{"resultType":"scalar","result":[1,"1"]}}"#,
            br#"[{"data":{"result":[{"a":1}]}}]"#,
            b"",
        ] {
            let (taken, rest) = split(other, 3, |_| true);
            assert!(taken.is_empty(), "{}", String::from_utf8_lossy(other));
            assert_eq!(rest.as_bytes(), other);
        }
    }

    #[test]
    fn a_reply_cut_inside_a_series_keeps_the_cut_series() {
        let cut = &REPLY[..REPLY.len() - 60];
        let (taken, rest) = split(cut, 4, |_| true);
        assert_eq!(taken.len(), 1);
        assert!(
            rest.contains(r#"{"metric":{"data":"result"},"val"#),
            "{rest}"
        );
        assert!(serde_json::from_str::<serde_json::Value>(&rest).is_err());
    }
}
