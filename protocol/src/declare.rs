//! The one declaration of every message, record line and nested object, as macros: a field is
//! written once, with its type, its doc (which becomes its schema's description) and whether it
//! is optional, and from that come the Rust type with its serde encoding, the fast encoder, the
//! strict tag-first decoder, the derived decoder it must agree with (fallback and test mirror),
//! and the JSON Schema.
//!
//! Field syntax, in both macros: `name: Type`, then `= optional` for a field that may be left
//! out (a reader takes its default; a writer leaves it out when it holds nothing: `None`, an
//! empty list, `false`), then `as Twin` for a field that decodes through another type (the
//! answer id). In `object!`, `name("wire-name")` spells the key differently from the field.

/// The key of a field, `name` or the spelling given.
macro_rules! wire_name {
    ([$wire:literal] $field:ident) => {
        $wire
    };
    ([] $field:ident) => {
        stringify!($field)
    };
}

/// True for an optional field. The one place the modifier's word is checked: the field
/// patterns below take any identifier after `=` (a pattern cannot capture a fixed word), and
/// every field goes through here or [`write_field!`], whose arms name `optional` itself, so
/// `= optinal` is a compile error ("no rules expected the token `optinal`"), not a field
/// silently made optional.
macro_rules! is_optional {
    ([optional]) => {
        true
    };
    ([]) => {
        false
    };
}

/// The type the fast decoder reads a field as.
macro_rules! de_type {
    ([$de:ty] $ty:ty) => {
        $de
    };
    ([] $ty:ty) => {
        <$ty as $crate::json::Json>::De
    };
}

/// The type whose schema a field has: what it is decoded as.
macro_rules! schema_type {
    ([$de:ty] $ty:ty) => {
        $de
    };
    ([] $ty:ty) => {
        $ty
    };
}

/// The type the derived decoder reads a field as.
macro_rules! derived_type {
    ([$de:ty] $ty:ty) => {
        $de
    };
    ([] $ty:ty) => {
        $ty
    };
}

/// A field's value from what the fast decoder read.
macro_rules! from_de {
    ([$de:ty] $ty:ty, $v:expr) => {
        <$ty as From<$de>>::from($v)
    };
    ([] $ty:ty, $v:expr) => {
        <$ty as $crate::json::Json>::from_de($v)
    };
}

/// A field's value from what the derived decoder read.
macro_rules! from_derived {
    ([$de:ty] $ty:ty, $v:expr) => {
        <$ty as From<$de>>::from($v)
    };
    ([] $ty:ty, $v:expr) => {
        $v
    };
}

/// Appends one field, `,"key":value`, unless it is optional and holds nothing.
macro_rules! write_field {
    ($o:ident, $value:expr, $key:expr, []) => {{
        $o.raw($key.as_bytes());
        $crate::json::Json::write($value, $o);
    }};
    ($o:ident, $value:expr, $key:expr, [optional]) => {
        if !$crate::json::Json::absent($value) {
            write_field!($o, $value, $key, []);
        }
    };
}

/// Adds one field to a schema's `properties` (and `required`, unless optional).
macro_rules! field_schema {
    ($defs:ident, $props:ident, $required:ident, $name:expr, $ty:ty, [$($opt:ident)?], [$($doc:literal),*]) => {{
        let mut s = <$ty as $crate::json::Json>::schema($defs);
        let doc = $crate::schema::doc(&[$($doc),*]);
        if !doc.is_empty() {
            s = $crate::schema::described(s, doc);
        }
        $props.insert($name.to_owned(), s);
        if !is_optional!([$($opt)?]) {
            $required.push($name);
        }
    }};
}

/// Declares a struct that travels as a JSON object. `closed` objects refuse unknown fields
/// (`deny_unknown_fields`, `additionalProperties: false`); `open` ones ignore them.
macro_rules! object {
    (closed $($rest:tt)*) => { object!(@ [deny_unknown_fields] true $($rest)*); };
    (open $($rest:tt)*) => { object!(@ [] false $($rest)*); };
    (@ [$($cattr:tt)*] $closed:literal
        $(#[doc = $doc:literal])*
        #[derive($($derive:path),*)]
        pub struct $name:ident {
            $(
                $(#[doc = $fdoc:literal])*
                pub $field:ident $(($wire:literal))? : $ty:ty $(= $opt:ident)?,
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive($($derive),*, serde::Serialize, serde::Deserialize)]
        #[serde($($cattr)*)]
        pub struct $name {
            $(
                $(#[doc = $fdoc])*
                $( #[serde(rename = $wire)] )?
                // `$( .. )?` repeats as often as `$opt` was given, so it must name `$opt`
                // inside; `cfg_attr(any(), ..)` names it and expands to nothing (`any()` of no
                // predicate is false), leaving only the serde attribute of an optional field.
                $( #[cfg_attr(any(), $opt)]
                   #[serde(default, skip_serializing_if = "crate::json::absent")] )?
                pub $field: $ty,
            )*
        }

        impl $crate::json::Json for $name {
            type De = $name;
            fn from_de(de: $name) -> $name {
                de
            }
            fn write(&self, o: &mut $crate::json::Out<'_>) {
                o.object(|o| $crate::json::Object::write_fields(self, o));
            }
            fn schema(defs: &mut $crate::json::Defs) -> serde_json::Value {
                $crate::json::def(defs, stringify!($name), |defs| {
                    let doc = $crate::schema::doc(&[$($doc),*]);
                    $crate::schema::object::<$name>(defs, doc)
                })
            }
        }

        impl $crate::json::Object for $name {
            fn write_fields(&self, o: &mut $crate::json::Out<'_>) {
                $(
                    write_field!(
                        o,
                        &self.$field,
                        concat!(",\"", wire_name!([$($wire)?] $field), "\":"),
                        [$($opt)?]
                    );
                )*
            }
            fn properties(
                defs: &mut $crate::json::Defs,
            ) -> (serde_json::Map<String, serde_json::Value>, Vec<&'static str>, bool) {
                let mut props = serde_json::Map::new();
                let mut required: Vec<&'static str> = Vec::new();
                $(
                    field_schema!(
                        defs, props, required, wire_name!([$($wire)?] $field), $ty,
                        [$($opt)?], [$($fdoc),*]
                    );
                )*
                (props, required, $closed)
            }
        }
    };
}

/// Declares an internally tagged enum (`{"type":"play",...}`), `strict` (unknown fields are
/// errors) or `lenient` (unknown fields are read for syntax and dropped). Variants hold fields
/// or one declared object (`Header = "header" (header: Box<Header>)`); a lenient enum may name
/// a unit variant for unknown types (`other = Unknown`). The decoder's items live in the module
/// named after `in`.
///
/// A variant may end with fields that several variants share, written once as a fragment: a
/// macro that takes what it is given and hands it back to `tagged!` followed by its fields in
/// braces (see `answered!` in `record.rs`); `Play = "play" { card: CardCode, } + answered`
/// declares `card` and then the fragment's fields, in that order on the wire.
macro_rules! tagged {
    (strict $($rest:tt)*) => { tagged!(@ (deny_unknown_fields) false $($rest)*); };
    (lenient $($rest:tt)*) => { tagged!(@ () true $($rest)*); };
    (@ $cattrs:tt $lenient:literal
        $(#[doc = $doc:literal])*
        #[derive($($derive:path),*)]
        pub enum $enum:ident in $module:ident $(, other = $other:ident)? {
            $(
                $(#[doc = $vdoc:literal])*
                $variant:ident = $wire:literal $(($bind:ident: $inner:ty))? $({
                    $(
                        $(#[doc = $fdoc:literal])*
                        $field:ident : $ty:ty $(= $opt:ident)? $(as $de:ty)?,
                    )*
                })?,
            )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive($($derive),*, serde::Serialize)]
        #[serde(tag = "type")]
        pub enum $enum {
            $(
                $(#[doc = $vdoc])*
                #[serde(rename = $wire)]
                $variant $(($inner))? $({
                    $(
                        $(#[doc = $fdoc])*
                        $( #[cfg_attr(any(), $opt)]
                           #[serde(default, skip_serializing_if = "crate::json::absent")] )?
                        $field: $ty,
                    )*
                })?,
            )*
            $(
                /// A message type this version does not know (a newer referee). Never sent.
                #[serde(rename = "unknown")]
                $other,
            )?
        }

        impl $enum {
            /// The `type` tag.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( $enum::$variant { .. } => $wire, )*
                    $( $enum::$other => "unknown", )?
                }
            }

            /// Appends the line and its `\n` to `buf`: the bytes of
            /// [`codec::encode_into`](crate::codec::encode_into), written without serde.
            pub fn encode_into(&self, buf: &mut Vec<u8>) {
                let o = &mut $crate::json::Out(buf);
                match self {
                    $(
                        $enum::$variant $(($bind))? $({ $($field),* })? => {
                            o.tag($wire);
                            $( $crate::json::Object::write_fields($bind, o); )?
                            $($(
                                write_field!(o, $field, concat!(",\"", stringify!($field), "\":"), [$($opt)?]);
                            )*)?
                        }
                    )*
                    $( $enum::$other => return $crate::codec::encode_into(self, buf), )?
                }
                buf.extend_from_slice(b"}\n");
            }

            /// The schema of each variant, by wire name.
            pub fn schemas(defs: &mut $crate::json::Defs) -> Vec<(&'static str, serde_json::Value)> {
                #[allow(unused_mut)]
                let mut all = Vec::new();
                $(
                    let doc = $crate::schema::doc(&[$($vdoc),*]);
                    #[allow(unused_mut, unused_variables, unused_assignments)]
                    let (mut props, mut required, mut closed) =
                        (serde_json::Map::new(), Vec::<&'static str>::new(), !$lenient);
                    $( (props, required, closed) = <$inner as $crate::json::Object>::properties(defs); )?
                    $($(
                        field_schema!(
                            defs, props, required, stringify!($field), schema_type!([$($de)?] $ty),
                            [$($opt)?], [$($fdoc),*]
                        );
                    )*)?
                    all.push(($wire, $crate::schema::variant($wire, doc, props, required, closed)));
                )*
                all
            }
        }

        mod $module {
            #![allow(unused_imports)]
            use super::*;
            use serde::Deserialize;
            use $crate::de::Tagged;

            /// Variant identifiers.
            #[derive(Clone, Copy, Debug)]
            pub(crate) enum Tag { $( $variant, )* $( $other, )? }

            /// Every field variant's fields as a struct, decoded straight from the input.
            mod fields {
                use super::*;
                $($(
                    #[derive(Deserialize)]
                    #[serde $cattrs]
                    pub(super) struct $variant {
                        $(
                            $( #[cfg_attr(any(), $opt)] #[serde(default)] )?
                            pub(super) $field: de_type!([$($de)?] $ty),
                        )*
                    }
                )?)*
            }

            /// The derive this decoder replaces, with the same attributes and the same name (so
            /// the same error messages): it decodes the rare spellings the fast path buffers (tag
            /// not first, array form), and the tests hold the fast path to it.
            mod derived {
                use super::*;

                #[derive(Debug, Deserialize)]
                #[serde(tag = "type")]
                #[serde $cattrs]
                pub(crate) enum $enum {
                    $(
                        #[serde(rename = $wire)]
                        $variant $(($inner))? $({
                            $(
                                $( #[cfg_attr(any(), $opt)] #[serde(default)] )?
                                $field: derived_type!([$($de)?] $ty),
                            )*
                        })?,
                    )*
                    $( #[serde(other)] $other, )?
                }
            }

            pub(crate) use derived::$enum as Derived;

            impl From<Derived> for $enum {
                fn from(d: Derived) -> $enum {
                    match d {
                        $(
                            Derived::$variant $(($bind))? $({ $($field),* })? => $enum::$variant
                                $(($bind))?
                                $({ $( $field: from_derived!([$($de)?] $ty, $field), )* })?,
                        )*
                        $( Derived::$other => $enum::$other, )?
                    }
                }
            }

            impl Tagged for $enum {
                type Tag = Tag;
                type Derived = Derived;
                const EXPECTING: &'static str = concat!("internally tagged enum ", stringify!($enum));

                fn tag_by_name<E: serde::de::Error>(name: &str) -> Result<Tag, E> {
                    const VARIANTS: &[&str] = &[$( $wire, )*];
                    match name {
                        $( $wire => Ok(Tag::$variant), )*
                        $( _ => Ok(Tag::$other), )?
                        #[allow(unreachable_patterns)]
                        _ => Err(E::unknown_variant(name, VARIANTS)),
                    }
                }

                fn skips(tag: Tag, key: &str) -> bool {
                    $lenient && match tag {
                        $( Tag::$variant => !{
                            const FIELDS: &[&str] = &[$($( stringify!($field), )*)?];
                            FIELDS.contains(&key)
                        }, )*
                        $( Tag::$other => true, )?
                    }
                }

                fn variant<'de, D: serde::Deserializer<'de>>(tag: Tag, d: D) -> Result<$enum, D::Error> {
                    match tag {
                        $(
                            Tag::$variant => {
                                $(
                                    let $bind = <$inner as Deserialize>::deserialize(d)?;
                                    Ok($enum::$variant($bind))
                                )?
                                $(
                                    let v = fields::$variant::deserialize(d)?;
                                    Ok($enum::$variant {
                                        $( $field: from_de!([$($de)?] $ty, v.$field), )*
                                    })
                                )?
                            }
                        )*
                        $(
                            Tag::$other => {
                                $crate::de::unit_variant(d, concat!("unit variant ", stringify!($enum), "::", stringify!($other)))?;
                                Ok($enum::$other)
                            }
                        )?
                    }
                }
            }

            impl<'de> Deserialize<'de> for $enum {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$enum, D::Error> {
                    $crate::de::tagged(d)
                }
            }
        }
    };
    // A declaration whose variants name fragments (`Play = "play" { .. } + answered`): the
    // variants are walked one by one, each fragment macro hands its fields back
    // (`@splice`), and the whole declaration, fields in place, goes to the arm above.
    //
    // How: a macro cannot expand another macro in the middle of its own pattern, so the
    // variants are "munched", a token tree at a time. `@munch HEAD [DONE] REST` moves the first
    // variant of REST into DONE: as it is (the last `@munch` arm but one) or, for one that ends
    // in `+ frag`, by calling `frag!(@splice HEAD [DONE] [VARIANT] {FIELDS} [REST])`, which
    // calls back `tagged!(@splice ..)` with the fragment's own fields added in braces; the
    // `@splice` arm appends them to the variant's and goes on munching. When REST is empty,
    // DONE holds every variant with all its fields, and the declaration is made again with it
    // for the first arm, which has no fragments left to see.
    (@ $cattrs:tt $lenient:literal
        $(#[doc = $doc:literal])*
        #[derive($($derive:path),*)]
        pub enum $enum:ident in $module:ident $(, other = $other:ident)? {
            $($variants:tt)*
        }
    ) => {
        tagged!(@munch [
            $cattrs $lenient $(#[doc = $doc])* #[derive($($derive),*)]
            pub enum $enum in $module $(, other = $other)?
        ] [] $($variants)*);
    };
    (@munch $head:tt [$($done:tt)*]
        $(#[doc = $vdoc:literal])* $variant:ident = $wire:literal { $($fields:tt)* } + $frag:ident,
        $($rest:tt)*
    ) => {
        $frag!(@splice $head [$($done)*] [$(#[doc = $vdoc])* $variant = $wire] { $($fields)* } [$($rest)*]);
    };
    (@splice $head:tt [$($done:tt)*] [$($variant:tt)*] { $($fields:tt)* } [$($rest:tt)*]
        { $($more:tt)* }
    ) => {
        tagged!(@munch $head [$($done)* $($variant)* { $($fields)* $($more)* },] $($rest)*);
    };
    (@munch $head:tt [$($done:tt)*]
        $(#[doc = $vdoc:literal])* $variant:ident = $wire:literal $body:tt,
        $($rest:tt)*
    ) => {
        tagged!(@munch $head [$($done)* $(#[doc = $vdoc])* $variant = $wire $body,] $($rest)*);
    };
    (@munch [$($head:tt)*] [$($done:tt)*]) => {
        tagged!(@ $($head)* { $($done)* });
    };
}
