// Package hocon parses HOCON (Typesafe Config) documents, with source
// positions, for stactor's job files. It accepts what Apache SeaTunnel
// accepts in its job files, including SeaTunnel's variable substitution,
// and JSON job files, which are HOCON too.
//
// Parse returns a tree of Values: objects (fields in source order),
// arrays and scalars. Every value and key has the position where it
// starts, and every error is an *Error "file:line:col: message".
//
// Supported, following the HOCON spec:
//   - comments starting with # or // (outside quoted strings; // starts a
//     comment in unquoted text too, so quote URLs)
//   - a root object with or without braces; key = value, key : value and
//     key { ... }; fields and array elements separated by commas or
//     newlines, trailing commas allowed; a value may start on the line
//     after '=' or ':'
//   - unquoted keys with dots are paths (row.num = 5 is row { num = 5 });
//     quoted keys ("row.num" = 5) are one key
//   - repeated keys: objects merge, the later field winning; other values
//     replace (but see Options.KeepDuplicates below)
//   - quoted strings with JSON escapes, """triple-quoted""" raw strings,
//     unquoted strings, and value concatenation (a = foo bar is
//     "foo bar"; arrays concatenate, objects merge)
//   - numbers, true/false and null; yes/no/on/off stay strings but
//     Value.Bool accepts them; the literal text is kept in Value.Text
//   - += to append to an array
//   - substitutions ${path} and ${?path}, also inside concatenations, and
//     self-references (path = ${path}":/x"); a path is looked up in the
//     document first, then in Options.Resolve; a ${?path} that finds
//     nothing leaves the field out (a = 1, a = ${?A} keeps 1)
//   - SeaTunnel's ${name:default} (the default may be quoted or empty)
//     and, with Options.SubstituteInQuoted, ${name} inside quoted
//     strings; unknown ones there are kept, as SeaTunnel keeps its sink
//     placeholders such as ${table_name}
//   - include "file", include file("file") and include
//     required(file("file")), relative to the including file, through
//     Options.ReadFile; a missing file is skipped unless required
//
// Beyond HOCON, Options.KeepDuplicates names objects whose repeated
// `Key { ... }` fields stay separate, in source order, instead of
// merging: SeaTunnel turns each of its source, transform and sink
// blocks into a list of plugins, so two FakeSource blocks are two
// sources. A path, +=, or other value for such a key goes to its last
// field, and so does a substitution; Value.Get finds the first.
//
// Deliberately left out: include url(...) and include classpath(...)
// (errors), duration and size units (a = 10s is just the string "10s";
// the caller converts), the properties-file and environment-variable
// fallbacks of Typesafe Config (the caller supplies Options.Resolve), and
// Typesafe's rewriting of paths inside included files: substitutions in
// an included file are looked up from the root of the whole document.
// Variables from Options.Resolve are scalars: a value that looks like a
// number or true/false becomes one; SeaTunnel, which pastes the text in
// before parsing, would also turn "[a, b]" into an array. Numbers are
// the JSON forms (with leading zeros allowed); other text such as .5 or
// 1. is a string.
package hocon
