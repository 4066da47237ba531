//! What every field type of a declared message knows about itself: how the fast encoder writes
//! it, which twin the strict decoder reads it with, and its JSON Schema. The declarations of
//! `declare.rs` are built on this trait, so a field's type alone decides all three.

use serde::Serialize;
use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

/// Shared sub-schemas of one schema file, by name: they become its `$defs`.
pub type Defs = BTreeMap<String, Value>;

/// A reference to the shared sub-schema `name`, registered in `defs` on first use.
pub fn def(defs: &mut Defs, name: &str, make: impl FnOnce(&mut Defs) -> Value) -> Value {
    if !defs.contains_key(name) {
        // A placeholder first, so a type that (one day) refers to itself terminates.
        defs.insert(name.to_owned(), Value::Null);
        let schema = make(defs);
        defs.insert(name.to_owned(), schema);
    }
    json!({ "$ref": format!("#/$defs/{name}") })
}

/// A type that travels in messages and record lines.
pub trait Json: Serialize + Sized {
    /// What the strict decoder reads for this type: the type itself, or a twin that decodes
    /// with fewer allocations and converts into it. Its accepted inputs and errors are the type's.
    type De: for<'de> Deserialize<'de>;

    /// The value from its decoded twin.
    fn from_de(de: Self::De) -> Self;

    /// Appends the value's JSON, exactly as serde_json writes it (the default asks serde_json).
    fn write(&self, o: &mut Out<'_>) {
        o.serde(self);
    }

    /// Appends a list of such values (a type with a tighter loop than one `write` per item
    /// overrides it: card codes, most of every question's bytes).
    fn write_list(items: &[Self], o: &mut Out<'_>) {
        o.list(items, |o, v| v.write(o));
    }

    /// True when an optional field holding this value is left out of a line (`None`, an empty
    /// list, `false`).
    fn absent(&self) -> bool {
        false
    }

    /// The JSON Schema of the value.
    fn schema(defs: &mut Defs) -> Value;
}

/// A declared object: its fields can be written inline, after a tag (`{"type":"header",...}`).
pub trait Object: Json {
    /// Appends every field, each preceded by a comma.
    fn write_fields(&self, o: &mut Out<'_>);

    /// The object's `properties` and `required` lists, and whether it refuses other fields.
    fn properties(defs: &mut Defs) -> (Map<String, Value>, Vec<&'static str>, bool);
}

/// For `skip_serializing_if`: the field is optional and holds nothing.
pub fn absent<T: Json>(value: &T) -> bool {
    value.absent()
}

/// A JSON line being written, in the bytes serde_json would write.
#[derive(Debug)]
pub struct Out<'a>(pub &'a mut Vec<u8>);

impl Out<'_> {
    /// Opens an object with its `type` tag (a plain ASCII name, never escaped).
    pub fn tag(&mut self, kind: &str) {
        self.0.extend_from_slice(b"{\"type\":\"");
        self.0.extend_from_slice(kind.as_bytes());
        self.0.push(b'"');
    }

    /// Appends raw bytes: a key written as `,"name":`, or punctuation.
    #[inline]
    pub fn raw(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    /// Writes a value of `fields` as an object: its first comma becomes the opening brace.
    pub fn object(&mut self, fields: impl FnOnce(&mut Self)) {
        let at = self.0.len();
        fields(self);
        if self.0.len() > at {
            self.0[at] = b'{';
        } else {
            self.0.push(b'{');
        }
        self.0.push(b'}');
    }

    /// serde_json's spelling of a value the fast paths do not write themselves (floats).
    pub fn serde<T: Serialize + ?Sized>(&mut self, value: &T) {
        if serde_json::to_writer(&mut *self.0, value).is_err() {
            self.0.extend_from_slice(b"null");
        }
    }

    /// An unsigned integer in decimal.
    #[inline]
    pub fn u64(&mut self, n: u64) {
        // Seats, tricks and scores: most numbers sent are one digit, and the call of the
        // longer path cost more than writing one.
        if n < 10 {
            self.0.push(b'0' + n as u8);
        } else {
            self.digits(n);
        }
    }

    /// An unsigned integer of two digits or more.
    #[inline(never)]
    fn digits(&mut self, mut n: u64) {
        // Two digits per step from a table: ids and milliseconds have four or more.
        const PAIRS: [u8; 200] = {
            let mut t = [0u8; 200];
            let mut i = 0;
            while i < 100 {
                t[2 * i] = b'0' + (i / 10) as u8;
                t[2 * i + 1] = b'0' + (i % 10) as u8;
                i += 1;
            }
            t
        };
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        while n >= 100 {
            let pair = (n % 100) as usize * 2;
            n /= 100;
            at -= 2;
            digits[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
        }
        if n >= 10 {
            at -= 2;
            digits[at..at + 2].copy_from_slice(&PAIRS[n as usize * 2..n as usize * 2 + 2]);
        } else {
            at -= 1;
            digits[at] = b'0' + n as u8;
        }
        self.0.extend_from_slice(&digits[at..]);
    }

    /// A list, each item written by `each`.
    pub fn list<T>(&mut self, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        self.0.push(b'[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.0.push(b',');
            }
            each(self, item);
        }
        self.0.push(b']');
    }

    /// A JSON string with serde_json's escapes: the two-character forms for `"`, `\` and the
    /// usual controls, `\u00XX` (lower-case hex) for the other controls, everything else as is.
    pub fn str(&mut self, s: &str) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let bytes = s.as_bytes();
        self.0.push(b'"');
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let short: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                0x00..=0x1f => &[],
                _ => continue,
            };
            self.0.extend_from_slice(&bytes[start..i]);
            start = i + 1;
            if short.is_empty() {
                self.0.extend_from_slice(b"\\u00");
                self.0.push(HEX[usize::from(b >> 4)]);
                self.0.push(HEX[usize::from(b & 0xf)]);
            } else {
                self.0.extend_from_slice(short);
            }
        }
        self.0.extend_from_slice(&bytes[start..]);
        self.0.push(b'"');
    }
}

/// Integers: their range is their schema. 64-bit ones say so, since a JSON parser that reads
/// numbers as doubles loses precision above 2^53.
macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl Json for $t {
            type De = $t;
            fn from_de(de: $t) -> $t {
                de
            }
            fn write(&self, o: &mut Out<'_>) {
                o.u64(u64::from(*self));
            }
            fn schema(_: &mut Defs) -> Value {
                let mut s = json!({ "type": "integer", "minimum": 0, "maximum": <$t>::MAX });
                if <$t>::BITS == 64 {
                    s["format"] = json!("uint64");
                    s["$comment"] = json!("may exceed 2^53: read it as a 64-bit integer");
                }
                s
            }
        }
    )*};
}

unsigned!(u8, u16, u32, u64);

impl Json for bool {
    type De = bool;
    fn from_de(de: bool) -> bool {
        de
    }
    fn write(&self, o: &mut Out<'_>) {
        o.raw(if *self { b"true" } else { b"false" });
    }
    fn absent(&self) -> bool {
        !*self
    }
    fn schema(_: &mut Defs) -> Value {
        json!({ "type": "boolean" })
    }
}

impl Json for f64 {
    type De = f64;
    fn from_de(de: f64) -> f64 {
        de
    }
    fn schema(_: &mut Defs) -> Value {
        json!({ "type": "number" })
    }
}

impl Json for String {
    type De = String;
    fn from_de(de: String) -> String {
        de
    }
    fn write(&self, o: &mut Out<'_>) {
        o.str(self);
    }
    fn schema(_: &mut Defs) -> Value {
        json!({ "type": "string" })
    }
}

impl<T: Json> Json for Option<T> {
    type De = Option<T::De>;
    fn from_de(de: Option<T::De>) -> Option<T> {
        de.map(T::from_de)
    }
    fn write(&self, o: &mut Out<'_>) {
        match self {
            Some(v) => v.write(o),
            None => o.raw(b"null"),
        }
    }
    fn absent(&self) -> bool {
        self.is_none()
    }
    fn schema(defs: &mut Defs) -> Value {
        json!({ "anyOf": [T::schema(defs), { "type": "null" }] })
    }
}

impl<T: Json> Json for Vec<T> {
    type De = List<T::De>;
    fn from_de(de: List<T::De>) -> Vec<T> {
        de.0.into_iter().map(T::from_de).collect()
    }
    fn write(&self, o: &mut Out<'_>) {
        T::write_list(self, o);
    }
    fn absent(&self) -> bool {
        self.is_empty()
    }
    fn schema(defs: &mut Defs) -> Value {
        json!({ "type": "array", "items": T::schema(defs) })
    }
}

impl<T: Json, const N: usize> Json for [T; N]
where
    [T; N]: Serialize + for<'de> Deserialize<'de>,
{
    type De = [T; N];
    fn from_de(de: [T; N]) -> [T; N] {
        de
    }
    fn write(&self, o: &mut Out<'_>) {
        T::write_list(self, o);
    }
    fn schema(defs: &mut Defs) -> Value {
        json!({ "type": "array", "items": T::schema(defs), "minItems": N, "maxItems": N })
    }
}

impl<T: Json> Json for Box<T> {
    type De = Box<T::De>;
    fn from_de(de: Box<T::De>) -> Box<T> {
        Box::new(T::from_de(*de))
    }
    fn write(&self, o: &mut Out<'_>) {
        (**self).write(o);
    }
    fn schema(defs: &mut Defs) -> Value {
        T::schema(defs)
    }
}

impl<T: Object> Object for Box<T> {
    fn write_fields(&self, o: &mut Out<'_>) {
        (**self).write_fields(o);
    }
    fn properties(defs: &mut Defs) -> (Map<String, Value>, Vec<&'static str>, bool) {
        T::properties(defs)
    }
}

/// A list as `Vec<T>` decodes it, with room for the whole list made at the first element (16
/// when the input does not tell, as serde_json does not) instead of growing from 4.
#[derive(Debug)]
pub struct List<T>(pub Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<List<T>, D::Error> {
        d.deserialize_seq(ListVisitor(PhantomData))
    }
}

struct ListVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
    type Value = List<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<List<T>, A::Error> {
        let mut list = Vec::new();
        while let Some(item) = seq.next_element::<T>()? {
            if list.is_empty() {
                list.reserve(1 + seq.size_hint().unwrap_or(15).min(63));
            }
            list.push(item);
        }
        Ok(List(list))
    }
}
