//! The Prometheus HTTP API as the import and the live view read it: one GET at a time through
//! innodebt's HTTP client (`innodebt_http`: TLS with the web's roots or the CA file given,
//! credentials from files), the reply decoded from the API's JSON envelope (`status`, `data`,
//! `errorType`, `error`).

use std::collections::BTreeMap;
use std::time::Duration;

use innodebt_http::{Client, Credentials, Settings, StatusCode, Url, UrlProblem};
use serde::Deserialize;

use super::PromError;
use super::split::Splitter;

/// How long one request of an import may take, connection included: a query_range chunk over
/// a day at 15 s answers in well under a second on a healthy Prometheus.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The largest reply read. A query_range chunk holds at most 50,000 points (a few MiB of
/// JSON); a `/api/v1/series` of a large instance is the biggest answer asked for.
pub const MAX_REPLY: usize = 256 << 20;

/// Where Prometheus is and how to prove who we are.
pub struct Endpoint {
    shown: String,
    /// The base URL, its path without the trailing `/` (a Prometheus behind
    /// `--web.route-prefix`).
    base: Url,
    client: Client,
}

/// Credentials, each read from a file so that no secret sits on a command line.
#[derive(Debug, Clone, Default)]
pub struct Auth {
    /// A file holding `user:password` on its first line.
    pub basic_file: Option<std::path::PathBuf>,
    /// A file holding the bearer token.
    pub bearer_file: Option<std::path::PathBuf>,
    /// A PEM file of CA certificates to trust instead of the web's roots.
    pub ca_file: Option<std::path::PathBuf>,
}

/// The client's words, with the flag that fixes each.
fn prom_error(shown: &str, e: innodebt_http::Error) -> PromError {
    use innodebt_http::Error as E;
    match e {
        E::Url { url, problem } => PromError::BadUrl {
            url,
            why: match problem {
                UrlProblem::Credentials => format!("{problem}: put them in --basic-auth-file"),
                other => other.to_string(),
            },
        },
        E::File { path, what, why } => PromError::Credentials { path, what, why },
        E::Tls { why, .. } => PromError::Tls(format!("{shown}: {why}")),
        E::TooLarge { limit, .. } => PromError::TooLarge {
            url: shown.to_string(),
            limit_mib: limit >> 20,
        },
        E::Connect { why, .. } | E::Cut { why, .. } => PromError::Unreachable {
            url: shown.to_string(),
            why,
        },
        E::Timeout { after, .. } => PromError::Unreachable {
            url: shown.to_string(),
            why: format!("no answer within {:.1} s", after.as_secs_f64()),
        },
        E::Credentials(why) => PromError::BadUrl {
            url: shown.to_string(),
            why: format!("{why}: check --basic-auth-file or --bearer-token-file"),
        },
        E::Setup(why) => PromError::BadUrl {
            url: shown.to_string(),
            why,
        },
    }
}

impl Endpoint {
    pub fn new(url: &str, auth: &Auth) -> Result<Endpoint, PromError> {
        let mut base = innodebt_http::url(url).map_err(|e| prom_error(url, e))?;
        let path = base.path().trim_end_matches('/').to_string();
        base.set_path(&path);
        base.set_query(None);
        let shown = format!(
            "{}://{}{}{path}",
            base.scheme(),
            base.host_str().unwrap_or_default(),
            base.port().map(|p| format!(":{p}")).unwrap_or_default(),
        );
        let credentials = match (&auth.basic_file, &auth.bearer_file) {
            (Some(_), Some(_)) => {
                return Err(PromError::BadUrl {
                    url: url.to_string(),
                    why: "give --basic-auth-file or --bearer-token-file, not both".into(),
                });
            }
            (Some(path), None) => Credentials::basic_file(path),
            (None, Some(path)) => Credentials::bearer_file(path),
            (None, None) => Ok(Credentials::None),
        }
        .map_err(|e| prom_error(&shown, e))?;
        let client = Client::new(Settings {
            // A plain-HTTP Prometheus has no use for the CA file.
            ca_file: auth.ca_file.as_deref().filter(|_| base.scheme() == "https"),
            credentials,
            timeout: REQUEST_TIMEOUT,
            max_body: MAX_REPLY,
        })
        .map_err(|e| prom_error(&shown, e))?;
        Ok(Endpoint {
            shown,
            base,
            client,
        })
    }

    /// The longest one request may take (a live view asks every step and cannot wait long).
    pub fn with_timeout(mut self, timeout: Duration) -> Endpoint {
        self.client = self.client.with_timeout(timeout);
        self
    }

    /// The URL as the user gave it, for messages.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// GET `api_path` (`/api/v1/...`) with `params`: the `data` of a successful reply.
    pub async fn get(
        &self,
        api_path: &str,
        params: &[(&str, String)],
    ) -> Result<serde_json::Value, PromError> {
        let (status, body) = self.fetch(api_path, params).await?;
        decode(&self.shown, api_path, status, &body)
    }

    /// `/api/v1/query_range`: its series, decoded from the reply's bytes straight into points
    /// (no JSON tree in between: a chunk's reply is the import's largest allocation).
    pub async fn query_range(
        &self,
        query: &str,
        start: &str,
        end: &str,
        step: &str,
    ) -> Result<Vec<Series>, PromError> {
        let mut series = Vec::new();
        self.query_range_each(query, start, end, step, &mut |s: Series| series.push(s))
            .await?;
        Ok(series)
    }

    /// `/api/v1/query_range`, each series decoded as a `T` (a [`Series`], or a leaner form of
    /// one) as soon as its bytes have arrived and handed to `each` at once, so a fleet's reply
    /// is never held whole, nor as one vector of label maps; returns what Prometheus warned of
    /// (a Thanos or Mimir that could not ask every store answers partially and says so).
    pub async fn query_range_each<T: serde::de::DeserializeOwned + From<Series>>(
        &self,
        query: &str,
        start: &str,
        end: &str,
        step: &str,
        each: &mut (dyn FnMut(T) + Send),
    ) -> Result<Vec<String>, PromError> {
        const PATH: &str = "/api/v1/query_range";
        let params = [
            ("query", query.to_string()),
            ("start", start.to_string()),
            ("end", end.to_string()),
            ("step", step.to_string()),
        ];
        // The series are decoded as their bytes arrive; only the rest of the reply is kept.
        let mut splitter = Splitter::default();
        let mut delivered = 0usize;
        let status = self
            .client
            .get_each_chunk(
                &self.url(PATH, &params),
                "application/json",
                &mut |_, chunk| {
                    splitter.feed(
                        chunk,
                        &mut |series| match serde_json::from_slice::<T>(series) {
                            Ok(s) => {
                                delivered += 1;
                                each(s);
                                true
                            }
                            Err(_) => false,
                        },
                    )
                },
            )
            .await
            .map_err(|e| prom_error(&self.shown, e))?;
        let body = splitter.finish();
        let mut count = |s: T| {
            delivered += 1;
            each(s)
        };
        let reply = serde::de::DeserializeSeed::deserialize(
            stream::Envelope(&mut count),
            &mut serde_json::Deserializer::from_slice(&body),
        );
        match reply {
            Ok(r) if r.status == "success" && status.is_success() => {
                if r.result_type.as_deref() != Some("matrix") {
                    return Err(not_a_matrix(&self.shown, r.result_type.as_deref()));
                }
                Ok(r.warnings)
            }
            // Not a matrix of points: the envelope's own words (an error, a 401, not Prometheus).
            _ => {
                let data = decode(&self.shown, PATH, status, &body)?;
                if delivered > 0 {
                    return Err(PromError::NotPrometheus {
                        url: self.shown.clone(),
                        api_path: PATH.into(),
                        status: status.as_u16(),
                        start: "a reply that broke off in its series".into(),
                    });
                }
                for s in matrix(&self.shown, data)? {
                    each(T::from(s));
                }
                Ok(Vec::new())
            }
        }
    }

    /// The URL of `api_path` under the base, with `params` as its query.
    fn url(&self, api_path: &str, params: &[(&str, String)]) -> Url {
        let mut url = self.base.clone();
        url.set_path(&format!(
            "{}{api_path}",
            self.base.path().trim_end_matches('/')
        ));
        url.query_pairs_mut()
            .extend_pairs(params.iter().map(|(k, v)| (*k, v.as_str())));
        url
    }

    async fn fetch(
        &self,
        api_path: &str,
        params: &[(&str, String)],
    ) -> Result<(StatusCode, Vec<u8>), PromError> {
        let reply = self
            .client
            .get(&self.url(api_path, params), "application/json")
            .await
            .map_err(|e| prom_error(&self.shown, e))?;
        Ok((reply.status, reply.body))
    }
}

/// The API's envelope: `{"status":"success","data":…}` or `{"status":"error",…}`.
#[derive(Deserialize)]
struct Envelope {
    status: String,
    #[serde(default)]
    data: serde_json::Value,
    #[serde(default, rename = "errorType")]
    error_type: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// Decodes one reply: the API's own error wins over the HTTP status (Prometheus answers a bad
/// query with 400 and a JSON error naming it).
pub fn decode(
    url: &str,
    api_path: &str,
    status: StatusCode,
    body: &[u8],
) -> Result<serde_json::Value, PromError> {
    if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
        return Err(PromError::Refused {
            url: url.to_string(),
            status: status.as_u16(),
        });
    }
    match serde_json::from_slice::<Envelope>(body) {
        Ok(e) if e.status == "success" && status.is_success() => Ok(e.data),
        Ok(e) => Err(PromError::Rejected {
            url: url.to_string(),
            status: status.as_u16(),
            kind: e.error_type.unwrap_or_else(|| "error".into()),
            error: e.error.unwrap_or_else(|| "no reason given".into()),
        }),
        Err(_) => Err(PromError::NotPrometheus {
            url: url.to_string(),
            api_path: api_path.to_string(),
            status: status.as_u16(),
            start: String::from_utf8_lossy(&body[..body.len().min(120)])
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        }),
    }
}

/// One series of a `matrix` reply: its labels (with `__name__`) and its (unix s, value) points.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Series {
    pub metric: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "points")]
    pub values: Vec<(f64, f64)>,
}

/// Prometheus writes each point as `[1700000000.5, "42"]`; "NaN", "+Inf" are dropped.
pub(super) fn points<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<(f64, f64)>, D::Error> {
    let raw: Vec<(f64, String)> = Vec::deserialize(d)?;
    Ok(raw
        .into_iter()
        .filter_map(|(t, v)| {
            v.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(|v| (t, v))
        })
        .collect())
}

/// A query_range reply's `data`.
#[derive(Deserialize)]
struct Matrix {
    #[serde(rename = "resultType")]
    result_type: String,
    result: Vec<Series>,
}

fn check_matrix(url: &str, d: &Matrix) -> Result<(), PromError> {
    match d.result_type.as_str() {
        "matrix" => Ok(()),
        other => Err(not_a_matrix(url, Some(other))),
    }
}

fn not_a_matrix(url: &str, result_type: Option<&str>) -> PromError {
    PromError::NotPrometheus {
        url: url.to_string(),
        api_path: "/api/v1/query_range".into(),
        status: 200,
        start: format!("a {} instead of a matrix", result_type.unwrap_or("reply")),
    }
}

/// A query_range reply read as a stream: the envelope's fields, and each series of
/// `data.result` handed on as it is decoded.
mod stream {
    use std::fmt;

    use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

    /// What the envelope says besides its series.
    #[derive(Default)]
    pub struct Said {
        pub status: String,
        pub result_type: Option<String>,
        pub warnings: Vec<String>,
    }

    /// `{"status":…, "data":{"resultType":…, "result":[…]}, "warnings":[…]}`.
    pub struct Envelope<'f, T>(pub &'f mut dyn FnMut(T));

    impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for Envelope<'_, T> {
        type Value = Said;
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Said, D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de, T: DeserializeOwned> Visitor<'de> for Envelope<'_, T> {
        type Value = Said;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("the Prometheus API's reply")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Said, A::Error> {
            let mut said = Said::default();
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "status" => said.status = map.next_value()?,
                    "warnings" => said.warnings = map.next_value()?,
                    "data" => said.result_type = map.next_value_seed(Data(&mut *self.0))?,
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(said)
        }
    }

    /// `data`: its `resultType`, each of its `result` handed on.
    struct Data<'f, T>(&'f mut dyn FnMut(T));

    impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for Data<'_, T> {
        type Value = Option<String>;
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_map(self)
        }
    }

    impl<'de, T: DeserializeOwned> Visitor<'de> for Data<'_, T> {
        type Value = Option<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a query_range reply's data")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut result_type = None;
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "resultType" => result_type = Some(map.next_value()?),
                    // A vector's or a scalar's results are not series of points.
                    "result" if result_type.as_deref().is_none_or(|t| t == "matrix") => {
                        map.next_value_seed(Each(&mut *self.0))?
                    }
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
            }
            Ok(result_type)
        }
    }

    /// `result`: each series handed on, none kept.
    struct Each<'f, T>(&'f mut dyn FnMut(T));

    impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for Each<'_, T> {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_seq(self)
        }
    }

    impl<'de, T: DeserializeOwned> Visitor<'de> for Each<'_, T> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a matrix of series")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while let Some(s) = seq.next_element::<T>()? {
                (self.0)(s);
            }
            Ok(())
        }
    }
}

/// `data` of a query_range reply: its `result` as series.
pub fn matrix(url: &str, data: serde_json::Value) -> Result<Vec<Series>, PromError> {
    let d: Matrix = serde_json::from_value(data).map_err(|e| PromError::NotPrometheus {
        url: url.to_string(),
        api_path: "/api/v1/query_range".into(),
        status: 200,
        start: e.to_string(),
    })?;
    check_matrix(url, &d)?;
    Ok(d.result)
}

/// `data` of a /api/v1/series reply: each series' labels.
pub fn label_sets(
    url: &str,
    data: serde_json::Value,
) -> Result<Vec<BTreeMap<String, String>>, PromError> {
    serde_json::from_value(data).map_err(|e| PromError::NotPrometheus {
        url: url.to_string(),
        api_path: "/api/v1/series".into(),
        status: 200,
        start: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies() {
        let ok = br#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up"},"values":[[1700000000,"1"],[1700000001,"NaN"],[1700000002,"2.5e+01"]]}]}}"#;
        let data = decode("u", "/api/v1/query_range", StatusCode::OK, ok).unwrap();
        let m = matrix("u", data).unwrap();
        assert_eq!(
            m[0].values,
            vec![(1_700_000_000.0, 1.0), (1_700_000_002.0, 25.0)]
        );
        let bad = br#"{"status":"error","errorType":"bad_data","error":"1:5: parse error"}"#;
        let e = decode("u", "/x", StatusCode::BAD_REQUEST, bad).unwrap_err();
        assert!(e.to_string().contains("bad_data: 1:5: parse error"), "{e}");
        let e = decode("u", "/x", StatusCode::UNAUTHORIZED, b"nope").unwrap_err();
        assert!(e.to_string().contains("401"), "{e}");
        let e = decode("u", "/x", StatusCode::OK, b"<html>").unwrap_err();
        assert!(e.to_string().contains("<html>"), "{e}");
    }

    fn each(body: &[u8]) -> Result<(stream::Said, Vec<Series>), serde_json::Error> {
        let mut got = Vec::new();
        let said = serde::de::DeserializeSeed::deserialize(
            stream::Envelope(&mut |s: Series| got.push(s)),
            &mut serde_json::Deserializer::from_slice(body),
        )?;
        Ok((said, got))
    }

    #[test]
    fn a_reply_read_series_by_series_is_the_reply() {
        let ok = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"__name__":"up","instance":"a"},"values":[[1700000000,"1"],[1700000015,"NaN"]]},
            {"metric":{"__name__":"up","instance":"b"},"values":[[1700000000,"0"]]}],
            "analysis":{}},"warnings":["store eu-1 did not answer"],"infos":[]}"#;
        let (said, got) = each(ok).unwrap();
        assert_eq!(said.status, "success");
        assert_eq!(said.result_type.as_deref(), Some("matrix"));
        assert_eq!(said.warnings, ["store eu-1 did not answer"]);
        let whole = decode("u", "/api/v1/query_range", StatusCode::OK, ok).unwrap();
        assert_eq!(got, matrix("u", whole).unwrap());
        assert_eq!(got[0].values, vec![(1_700_000_000.0, 1.0)]);
        // An error reply has no series; a vector is no matrix; a cut reply is an error.
        let (said, got) =
            each(br#"{"status":"error","errorType":"timeout","error":"query timed out"}"#).unwrap();
        assert_eq!((said.status.as_str(), got.len()), ("error", 0));
        let vector = br#"{"status":"success","data":{"resultType":"vector","result":[
            {"metric":{"__name__":"up"},"value":[1700000000,"1"]}]}}"#;
        let (said, got) = each(vector).unwrap();
        assert_eq!(
            (said.result_type.as_deref(), got.len()),
            (Some("vector"), 0)
        );
        assert!(each(&ok[..ok.len() / 2]).is_err());
    }

    #[test]
    fn a_reply_split_as_it_arrives_is_the_reply() {
        let ok = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"__name__":"up","instance":"a"},"values":[[1700000000,"1"],[1700000015,"NaN"]]},
            {"metric":{"__name__":"up","instance":"b"},"values":[[1700000000,"0"]]}]},
            "warnings":["store eu-1 did not answer"]}"#;
        let (whole_said, whole) = each(ok).unwrap();
        for chunk in [1, 5, 4096] {
            let mut splitter = Splitter::default();
            let mut got = Vec::new();
            for c in ok.chunks(chunk) {
                splitter.feed(c, &mut |s| {
                    got.push(serde_json::from_slice::<Series>(s).unwrap());
                    true
                });
            }
            let (said, rest) = each(&splitter.finish()).unwrap();
            assert!(rest.is_empty());
            assert_eq!(got, whole, "chunks of {chunk}");
            assert_eq!(
                (said.status, said.result_type, said.warnings),
                (
                    whole_said.status.clone(),
                    whole_said.result_type.clone(),
                    whole_said.warnings.clone()
                )
            );
        }
    }

    #[test]
    fn urls() {
        let e = Endpoint::new("ftp://x", &Auth::default()).err().unwrap();
        assert!(e.to_string().contains("http://"), "{e}");
        let e = Endpoint::new("http://u:p@x:9090", &Auth::default())
            .err()
            .unwrap();
        assert!(e.to_string().contains("--basic-auth-file"), "{e}");
        let ep = Endpoint::new("http://prom:9090/prefix/", &Auth::default()).unwrap();
        assert_eq!(ep.shown(), "http://prom:9090/prefix");
        let q = ep.url("/api/v1/series", &[("match[]", "up{a=\"b c\"}".into())]);
        assert_eq!(
            q.as_str(),
            "http://prom:9090/prefix/api/v1/series?match%5B%5D=up%7Ba%3D%22b+c%22%7D"
        );
        let ep = Endpoint::new("https://[::1]/", &Auth::default()).unwrap();
        assert_eq!(ep.shown(), "https://[::1]");
        assert_eq!(
            ep.url("/api/v1/query", &[]).as_str(),
            "https://[::1]/api/v1/query?"
        );
        // A CA file that is not one is told at once, for https.
        let dir = tempfile::tempdir().unwrap();
        let ca = dir.path().join("ca.pem");
        std::fs::write(&ca, "nothing\n").unwrap();
        let auth = Auth {
            ca_file: Some(ca),
            ..Auth::default()
        };
        let e = Endpoint::new("https://prom:9090", &auth).err().unwrap();
        assert!(e.to_string().contains("no certificate in it"), "{e}");
        assert!(Endpoint::new("http://prom:9090", &auth).is_ok());
    }
}
