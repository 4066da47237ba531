//! The strict tag-first decoder of every tagged enum declared in `declare.rs`, without serde's
//! generic buffering.
//!
//! `#[derive(Deserialize)]` on an internally tagged enum first copies every key and value of the
//! object into serde's `Content` tree (strings, vectors, boxes), because the tag might come last,
//! and only then decodes the variant from that copy. The referee writes `type` first, and so do
//! the sample bots, so this decoder reads the tag, then decodes the variant's fields straight
//! from the input with a derived struct that has exactly the variant's fields and attributes.
//! An object whose first key is not `type`, and the array form that serde also accepts
//! (`["play", 3, "3o"]`), are copied whole (in order, duplicates kept) and handed to the derive
//! itself (the declaration's `Derived` enum), so they decode exactly as before.
//!
//! Accepted lines, decoded values and error messages are those of the derive (errors may now also
//! say where in the line they were found); `msg_tests.rs` compares both on tables of lines, the
//! transcripts and random mutations of them. One exception, in the lenient direction only: an
//! unknown field nested inside a known one (`rules`, `clock`, `table`, ...) is skipped by
//! serde_json's fast skipper, which checks its JSON syntax but not the range of its numbers nor
//! its `\u` escapes; the derive rejected such a line.

use serde::de::value::{
    BorrowedStrDeserializer, MapAccessDeserializer, MapDeserializer, SeqDeserializer,
    StringDeserializer, UnitDeserializer,
};
use serde::de::{
    self, DeserializeSeed, Deserializer, Error as _, IgnoredAny, IntoDeserializer, MapAccess,
    SeqAccess, Visitor,
};
use serde::{Deserialize, forward_to_deserialize_any};
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// The tag key.
const TAG: &str = "type";

/// An internally tagged enum as the derive sees it: its variant identifiers and, per variant,
/// a decoder of the fields. Implemented by `tagged!`.
pub(crate) trait Tagged: Sized {
    /// The variant identifier.
    type Tag: Copy;
    /// The derived decoder of the same enum, for spellings that must be buffered.
    type Derived: for<'de> Deserialize<'de> + Into<Self>;
    /// What the derive says it expected when the input is not an object: "internally tagged
    /// enum Name".
    const EXPECTING: &'static str;
    /// The variant named `name`, or the error the derive gives.
    fn tag_by_name<E: de::Error>(name: &str) -> Result<Self::Tag, E>;
    /// True when `key` is not a field of the variant and the enum ignores unknown fields: its
    /// value is then read in full, as serde's buffer did, before being ignored. Always false
    /// for strict enums, whose variants refuse unknown fields themselves.
    fn skips(tag: Self::Tag, key: &str) -> bool;
    /// Decodes the variant's fields (the object without its tag).
    fn variant<'de, D: Deserializer<'de>>(tag: Self::Tag, fields: D) -> Result<Self, D::Error>;
}

/// Decodes a tagged enum.
pub(crate) fn tagged<'de, D: Deserializer<'de>, T: Tagged>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(TaggedVisitor(PhantomData))
}

/// Decodes a unit variant's content as the derive does (`ToBot::Unknown`).
pub(crate) fn unit_variant<'de, D: Deserializer<'de>>(
    d: D,
    name: &'static str,
) -> Result<(), D::Error> {
    d.deserialize_any(UnitVariant(name))
}

/// The id an answer carries when its `id` was a number that no question can have (see
/// [`FromBot`](crate::msg::FromBot)). Questions are numbered from 1, so this one is never
/// asked. Declared here, beside the decoder that gives it, and re-exported by `msg`: the
/// decoder depends on no message type.
pub const NO_QUESTION: u64 = 0;

/// An answer's `id` (see [`FromBot`](crate::FromBot)): any JSON number. serde_json hands a
/// visitor a `u64` only for an integer written without sign, fraction or exponent that fits; a
/// negative integer comes as `i64`, and everything else (fractions, exponents, `-0`, integers
/// beyond 2^64 − 1) as `f64`. Those name no question. A number beyond the range of a double
/// (`1e999`) is an error of serde_json itself, as everywhere else in a line.
#[derive(Clone, Copy, Debug)]
pub struct AnswerId(pub u64);

impl From<AnswerId> for u64 {
    fn from(AnswerId(id): AnswerId) -> u64 {
        id
    }
}

impl serde::Serialize for AnswerId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl crate::json::Json for AnswerId {
    type De = AnswerId;
    fn from_de(de: AnswerId) -> AnswerId {
        de
    }
    fn schema(_: &mut crate::json::Defs) -> serde_json::Value {
        serde_json::json!({
            "type": "number",
            "$comment": "The id of the question answered, an integer from 1 to 2^64 - 1 (beyond 2^53: read it as a 64-bit integer). Any other number is a valid answer to no question (an unknown_id fault), not a malformed line.",
        })
    }
}

impl<'de> Deserialize<'de> for AnswerId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<AnswerId, D::Error> {
        d.deserialize_any(AnswerIdVisitor)
    }
}

struct AnswerIdVisitor;

impl<'de> Visitor<'de> for AnswerIdVisitor {
    type Value = AnswerId;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer id")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<AnswerId, E> {
        Ok(AnswerId(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<AnswerId, E> {
        Ok(AnswerId(u64::try_from(v).unwrap_or(NO_QUESTION)))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<AnswerId, E> {
        Ok(AnswerId(NO_QUESTION))
    }
}

/// The visitor of the whole message: an object (or an array) whose `type` names the variant.
struct TaggedVisitor<T>(PhantomData<T>);

impl<'de, T: Tagged> Visitor<'de> for TaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let Some(Key(first)) = map.next_key()? else {
            return Err(A::Error::missing_field(TAG));
        };
        if first == TAG {
            // The usual case: the fields are decoded as they come.
            let TagOf(tag) = map.next_value::<TagOf<T>>()?;
            let rest = Rest::<A, T> { map, tag, skip_value: false };
            return T::variant(tag, MapAccessDeserializer::new(rest));
        }
        // The tag comes later: keep the fields, and let the derive decide. One difference: the
        // derive takes a number there as a variant index (`"type":0` for the first), which no
        // schema allows and the tag-first path never did; it is refused here too.
        let mut entries = vec![(Buf::from(first), map.next_value::<Buf<'de>>()?)];
        while let Some((k, v)) = map.next_entry::<Buf<'de>, Buf<'de>>()? {
            let is_tag = matches!(&k, Buf::Str(TAG)) || matches!(&k, Buf::String(k) if k == TAG);
            if let (true, Buf::U64(n)) = (is_tag, &v) {
                let unexpected = de::Unexpected::Unsigned(*n);
                return Err(A::Error::invalid_type(unexpected, &"variant identifier"));
            }
            entries.push((k, v));
        }
        T::Derived::deserialize(BufDeserializer::new(Buf::Map(entries))).map(Into::into)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        // `["play", 3, "3o"]`: the tag, then the fields in order. No bot writes this, but the
        // derive accepts it, so it is kept, and left to the derive.
        let mut items = Vec::new();
        while let Some(value) = seq.next_element::<Buf<'de>>()? {
            items.push(value);
        }
        T::Derived::deserialize(BufDeserializer::new(Buf::Seq(items))).map(Into::into)
    }
}

/// The value of `type`: a variant identifier.
struct TagOf<T: Tagged>(T::Tag);

impl<'de, T: Tagged> Deserialize<'de> for TagOf<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TagOf<T>, D::Error> {
        d.deserialize_identifier(TagVisitor(PhantomData))
    }
}

struct TagVisitor<T>(PhantomData<T>);

impl<'de, T: Tagged> Visitor<'de> for TagVisitor<T> {
    type Value = TagOf<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<TagOf<T>, E> {
        T::tag_by_name(name).map(TagOf)
    }

    fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<TagOf<T>, E> {
        T::tag_by_name(&String::from_utf8_lossy(name)).map(TagOf)
    }
}

/// An object key, borrowed from the input when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
        d.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v)))
    }
}

/// The rest of an object after its leading `type`, as the variant's struct sees it: a second
/// `type` is an error (the derive's "duplicate field"), and for lenient enums the values of
/// unknown fields are read in full, as serde's buffer read them, before being ignored.
struct Rest<A, T: Tagged> {
    map: A,
    tag: T::Tag,
    /// The key just given is unknown: its value is skipped here.
    skip_value: bool,
}

impl<'de, A: MapAccess<'de>, T: Tagged> MapAccess<'de> for Rest<A, T> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let Some(Key(key)) = self.map.next_key()? else { return Ok(None) };
        if key == TAG {
            return Err(A::Error::duplicate_field(TAG));
        }
        self.skip_value = T::skips(self.tag, &key);
        match key {
            Cow::Borrowed(key) => seed.deserialize(BorrowedStrDeserializer::new(key)),
            Cow::Owned(key) => seed.deserialize(StringDeserializer::new(key)),
        }
        .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        if std::mem::take(&mut self.skip_value) {
            // The derived struct ignores an unknown field's value with `IgnoredAny`, which
            // accepts the unit given here once the real value has been checked.
            self.map.next_value::<Buf<'de>>()?;
            return seed.deserialize(UnitDeserializer::new());
        }
        self.map.next_value_seed(seed)
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// The derive's visitor of a unit variant's content (`ToBot::Unknown`): every field of an
/// object is ignored; an array must be empty (its leftovers are the caller's error).
struct UnitVariant(&'static str);

impl<'de> Visitor<'de> for UnitVariant {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

/// A JSON value kept whole, in order and with duplicate keys: serde's `Content`, for the rare
/// message that must be buffered.
#[derive(Debug)]
enum Buf<'de> {
    Unit,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(&'de str),
    String(String),
    Seq(Vec<Buf<'de>>),
    Map(Vec<(Buf<'de>, Buf<'de>)>),
}

impl<'de> From<Cow<'de, str>> for Buf<'de> {
    fn from(s: Cow<'de, str>) -> Buf<'de> {
        match s {
            Cow::Borrowed(s) => Buf::Str(s),
            Cow::Owned(s) => Buf::String(s),
        }
    }
}

impl<'de> Deserialize<'de> for Buf<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Buf<'de>, D::Error> {
        d.deserialize_any(BufVisitor)
    }
}

struct BufVisitor;

impl<'de> Visitor<'de> for BufVisitor {
    type Value = Buf<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Buf<'de>, E> {
        Ok(Buf::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Buf<'de>, E> {
        Ok(Buf::I64(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Buf<'de>, E> {
        Ok(Buf::U64(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Buf<'de>, E> {
        Ok(Buf::F64(v))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Buf<'de>, E> {
        Ok(Buf::Str(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Buf<'de>, E> {
        Ok(Buf::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Buf<'de>, E> {
        Ok(Buf::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Buf<'de>, E> {
        Ok(Buf::Unit)
    }

    fn visit_none<E: de::Error>(self) -> Result<Buf<'de>, E> {
        Ok(Buf::Unit)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Buf<'de>, D::Error> {
        Buf::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Buf<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Buf::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Buf<'de>, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(Buf::Map(entries))
    }
}

/// Replays a [`Buf`] to a visitor, as serde's `ContentDeserializer` does.
struct BufDeserializer<'de, E> {
    buf: Buf<'de>,
    error: PhantomData<E>,
}

impl<'de, E> BufDeserializer<'de, E> {
    fn new(buf: Buf<'de>) -> Self {
        BufDeserializer { buf, error: PhantomData }
    }
}

impl<'de, E: de::Error> IntoDeserializer<'de, E> for Buf<'de> {
    type Deserializer = BufDeserializer<'de, E>;

    fn into_deserializer(self) -> BufDeserializer<'de, E> {
        BufDeserializer::new(self)
    }
}

impl<'de, E: de::Error> Deserializer<'de> for BufDeserializer<'de, E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        match self.buf {
            Buf::Unit => visitor.visit_unit(),
            Buf::Bool(v) => visitor.visit_bool(v),
            Buf::U64(v) => visitor.visit_u64(v),
            Buf::I64(v) => visitor.visit_i64(v),
            Buf::F64(v) => visitor.visit_f64(v),
            Buf::Str(v) => visitor.visit_borrowed_str(v),
            Buf::String(v) => visitor.visit_string(v),
            Buf::Seq(items) => {
                let mut seq = SeqDeserializer::new(items.into_iter());
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            Buf::Map(entries) => {
                let mut map = MapDeserializer::new(entries.into_iter());
                let value = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(value)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        match self.buf {
            Buf::Unit => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
    }
}
