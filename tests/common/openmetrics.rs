//! Reading innodebt's text format back, for the tests of what the exporter writes (the
//! registry's families, the judgements each reader shares). Only what innodebt writes needs
//! to be understood (both formats); a malformed line is an error naming it, never a guess.

/// One sample line.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedSample {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

impl ParsedSample {
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// All samples of a scrape, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scrape {
    pub samples: Vec<ParsedSample>,
}

impl Scrape {
    /// The value of the unlabelled sample `name`.
    pub fn value(&self, name: &str) -> Option<f64> {
        self.samples
            .iter()
            .find(|s| s.name == name && s.labels.is_empty())
            .map(|s| s.value)
    }

    /// Samples named `name`.
    pub fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a ParsedSample> + 'a {
        self.samples.iter().filter(move |s| s.name == name)
    }

    /// The states of a StateSet that are 1.
    pub fn states_on(&self, name: &str) -> Vec<String> {
        self.all(name)
            .filter(|s| s.value == 1.0)
            .filter_map(|s| s.label(name).map(str::to_string))
            .collect()
    }
}

pub fn parse(text: &str) -> Result<Scrape, String> {
    let mut samples = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        samples.push(sample(line).map_err(|e| format!("line {}: {e}: {line:.120}", i + 1))?);
    }
    Ok(Scrape { samples })
}

fn sample(line: &str) -> Result<ParsedSample, String> {
    let name_end = line.find(['{', ' ']).ok_or("no value")?;
    let name = &line[..name_end];
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    {
        return Err("bad metric name".into());
    }
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    if let Some(after) = rest.strip_prefix('{') {
        let (parsed, after) = label_set(after)?;
        labels = parsed;
        rest = after;
    }
    let mut fields = rest.split_whitespace();
    let value = fields.next().ok_or("no value")?;
    let value = match value {
        "+Inf" | "Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        "NaN" => f64::NAN,
        v => v.parse::<f64>().map_err(|_| format!("bad value {v:?}"))?,
    };
    Ok(ParsedSample {
        name: name.to_string(),
        labels,
        value,
    })
}

type LabelPairs = Vec<(String, String)>;

/// `a="x",b="y"}` → pairs and what follows the `}`.
fn label_set(mut s: &str) -> Result<(LabelPairs, &str), String> {
    let mut out = Vec::new();
    loop {
        s = s.trim_start_matches([' ', ',']);
        if let Some(after) = s.strip_prefix('}') {
            return Ok((out, after));
        }
        let eq = s.find('=').ok_or("label without =")?;
        let key = s[..eq].trim().to_string();
        s = s[eq + 1..]
            .strip_prefix('"')
            .ok_or("label value not quoted")?;
        let mut value = String::new();
        let mut chars = s.char_indices();
        let end = loop {
            match chars.next() {
                Some((i, '"')) => break i,
                Some((_, '\\')) => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, c)) => value.push(c),
                    None => return Err("unterminated label value".into()),
                },
                Some((_, c)) => value.push(c),
                None => return Err("unterminated label value".into()),
            }
        };
        out.push((key, value));
        s = &s[end + 1..];
    }
}
