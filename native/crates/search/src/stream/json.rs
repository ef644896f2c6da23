//! JSON strings written exactly as JavaScript's `JSON.stringify` writes them, so that a streamed
//! `--json` line is byte for byte what the CLI printed when it formatted results itself.

/// Appends `text` as a quoted JSON string: `"` and `\` escaped, the short escapes for
/// backspace, form feed, newline, carriage return and tab, `\u00xx` (lower-case hex) for the other
/// control characters, and everything else as it is (including DEL, U+2028 and U+2029).
pub(crate) fn push_string(out: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let bytes = text.as_bytes();
    let mut clean = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        let escape: &[u8] = match byte {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\x08' => b"\\b",
            b'\x0c' => b"\\f",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => &[],
            _ => continue,
        };
        out.extend_from_slice(&bytes[clean..i]);
        clean = i + 1;
        if escape.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(byte >> 4)]);
            out.push(HEX[usize::from(byte & 0xf)]);
        } else {
            out.extend_from_slice(escape);
        }
    }
    out.extend_from_slice(&bytes[clean..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::push_string;

    fn json(text: &str) -> String {
        let mut out = Vec::new();
        push_string(&mut out, text);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_as_json_stringify_does() {
        assert_eq!(json("plain"), r#""plain""#);
        assert_eq!(json(r#"a "q" \ b"#), r#""a \"q\" \\ b""#);
        assert_eq!(json("\u{8}\u{c}\n\r\t"), r#""\b\f\n\r\t""#);
        assert_eq!(json("\u{0}\u{1}\u{1f}"), r#""\u0000\u0001\u001f""#);
        assert_eq!(json("\u{7f} é \u{2028} 😀"), "\"\u{7f} é \u{2028} 😀\"");
        assert_eq!(json(""), r#""""#);
    }
}
