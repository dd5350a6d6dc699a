//! Reading a file one way only: JSON with no key twice in any object, and a value whose every
//! part has the documented shape (docs/journal.md, "A jornada's evidence").
//!
//! A JSON parser that keeps the last of two equal keys (serde's, and so the verifier's) and one
//! that keeps the first (a person's eye, other programs) read the same signed bytes as two
//! different files: a pool named twice in `closing.pools`, false figures first and true ones
//! last, would be one jornada to the verifier and another to whoever reads it. And serde reads
//! a struct from an array as well as from an object, a second shape nobody documented. So every
//! object's keys are checked before anything is believed, and the value read must be exactly
//! what its type writes back.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `bytes` as JSON, refusing a key repeated in any object, at any depth.
pub fn parse(bytes: &[u8]) -> Result<Value, String> {
    serde_json::from_slice::<Unique>(bytes).map(|unique| unique.0).map_err(|error| error.to_string())
}

/// `value` read as a `T`, and refused unless `T` writes it back as it is: no array for an
/// object, no number for a decimal text, no field `T` would not write. A field the file leaves
/// out and `T` fills in with its default is accepted: a file of an earlier release has no field
/// added since, and reads one way (the documented default). Names the first part that differs.
pub fn read<T: for<'de> Deserialize<'de> + Serialize>(value: &Value, path: &str) -> Result<T, String> {
    let typed: T = T::deserialize(value).map_err(|error| format!("{path}: {error}"))?;
    let again = serde_json::to_value(&typed).map_err(|error| format!("{path}: {error}"))?;
    match difference(value, &again, path) {
        Some(path) => Err(format!("{path}: no tiene la forma documentada (docs/journal.md)")),
        None => Ok(typed),
    }
}

/// The first place, as a path (`evidence.entries[3].pools`), where the file's `a` and the
/// type's `b` differ, but for fields `b` adds (defaults).
fn difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => a.iter().find_map(|(key, value)| match b.get(key) {
            Some(again) => difference(value, again, &format!("{path}.{key}")),
            None => Some(format!("{path}.{key}")),
        }),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            a.iter().zip(b).enumerate().find_map(|(index, (a, b))| difference(a, b, &format!("{path}[{index}]")))
        }
        (a, b) if a == b => None,
        _ => Some(path.to_owned()),
    }
}

/// A JSON value whose objects have no key twice.
struct Unique(Value);

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Unique, D::Error> {
        deserializer.deserialize_any(UniqueVisitor).map(Unique)
    }
}

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut values = Vec::new();
        while let Some(Unique(value)) = seq.next_element()? {
            values.push(value);
        }
        Ok(Value::Array(values))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!("la clave «{key}» aparece dos veces en un mismo objeto")));
            }
            let Unique(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Pair {
        a: u32,
        b: String,
    }

    #[test]
    fn a_key_twice_at_any_depth_is_refused() {
        assert!(parse(br#"{"a": [{"x": 1, "y": {"z": 2}}]}"#).is_ok());
        let error = parse(br#"{"a": [{"x": 1, "y": {"z": 2, "z": 3}}]}"#).expect_err("z twice");
        assert!(error.contains("«z» aparece dos veces"), "{error}");
        assert!(parse(br#"{"a": 1, "a": 1}"#).is_err());
    }

    #[test]
    fn only_the_shape_a_type_writes_is_read() {
        let value = parse(br#"{"a": 1, "b": "x"}"#).expect("JSON");
        assert_eq!(read::<Pair>(&value, "p"), Ok(Pair { a: 1, b: "x".into() }));
        let array = parse(br#"[1, "x"]"#).expect("JSON");
        assert!(read::<Pair>(&array, "p").is_err_and(|error| error.contains("p: no tiene la forma documentada")));
        let nested = parse(br#"{"p": {"a": 1, "b": "x"}, "q": [2]}"#).expect("JSON");
        let other = parse(br#"{"p": {"a": 1, "b": "y"}, "q": [2]}"#).expect("JSON");
        assert_eq!(difference(&nested, &other, "file"), Some("file.p.b".to_owned()));
        // A field left to its default reads one way; a field the type does not write does not.
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Later {
            a: u32,
            #[serde(default)]
            b: bool,
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            c: Vec<u32>,
        }
        assert!(read::<Later>(&parse(br#"{"a": 1}"#).expect("JSON"), "l").is_ok());
        let empty = parse(br#"{"a": 1, "b": false, "c": []}"#).expect("JSON");
        assert!(read::<Later>(&empty, "l").is_err_and(|error| error.starts_with("l.c:")));
    }
}
