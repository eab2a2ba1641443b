//! The protobuf wire format: a reader of `(field number, value)` pairs.

use super::ProtobufError;

/// One field value as it sits on the wire.
pub enum Wire<'a> {
    Varint(u64),
    Len(&'a [u8]),
    /// A fixed64 value: the `double` fields of JSONSchemaProps.
    Fixed64(u64),
    /// A fixed32 value: no Kubernetes field uses one (no `float` or `fixed32`), so it is only skipped.
    Fixed32,
}

/// Iterates over the `(field number, value)` pairs of one message; stops after the first error.
pub struct Reader<'a>(pub &'a [u8]);

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, ProtobufError> {
        let mut value = 0u64;
        // A u64 takes at most ten 7-bit groups; a longer run is corrupt, not just large.
        for (index, &byte) in self.0.iter().enumerate().take(10) {
            value |= u64::from(byte & 0x7f) << (7 * index);
            if byte & 0x80 == 0 {
                self.0 = &self.0[index + 1..];
                return Ok(value);
            }
        }
        Err(ProtobufError::Malformed("truncated or overlong varint"))
    }

    fn take(&mut self, len: u64) -> Result<&'a [u8], ProtobufError> {
        let len = usize::try_from(len)
            .ok()
            .filter(|&len| len <= self.0.len())
            .ok_or(ProtobufError::Malformed("a length runs past the end of its message"))?;
        let (head, tail) = self.0.split_at(len);
        self.0 = tail;
        Ok(head)
    }

    fn field(&mut self) -> Result<(u32, Wire<'a>), ProtobufError> {
        let key = self.varint()?;
        let number = u32::try_from(key >> 3)
            .ok()
            .filter(|&number| number != 0)
            .ok_or(ProtobufError::Malformed("invalid field number"))?;
        let value = match key & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => {
                let bytes: [u8; 8] = self.take(8)?.try_into().map_err(|_| ProtobufError::Malformed("short fixed64"))?;
                Wire::Fixed64(u64::from_le_bytes(bytes))
            }
            2 => {
                let len = self.varint()?;
                Wire::Len(self.take(len)?)
            }
            5 => self.take(4).map(|_| Wire::Fixed32)?,
            // Wire types 3 and 4 are proto2 groups, which generated Kubernetes messages never use.
            _ => return Err(ProtobufError::Malformed("unsupported wire type")),
        };
        Ok((number, value))
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<(u32, Wire<'a>), ProtobufError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.0.is_empty() {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            self.0 = &[];
        }
        Some(field)
    }
}

/// A string field's bytes as text.
pub fn utf8(bytes: &[u8]) -> Result<String, ProtobufError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| ProtobufError::Malformed("a string field is not valid UTF-8"))
}

/// Appends fields to a message under construction, as the Go encoder lays them out.
#[derive(Default)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    fn key(&mut self, number: u32, wire_type: u8) {
        self.varint_raw(u64::from(number) << 3 | u64::from(wire_type));
    }

    fn varint_raw(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.0.push((value as u8) | 0x80);
            value >>= 7;
        }
        self.0.push(value as u8);
    }

    /// A varint field; negative numbers take ten bytes, as protobuf's int32 and int64 do.
    pub fn varint(&mut self, number: u32, value: i64) {
        self.key(number, 0);
        // Two's complement, the protobuf rule for negative int32 and int64.
        self.varint_raw(value as u64);
    }

    /// A length-delimited field: a string, bytes, an embedded message or a map entry.
    pub fn bytes(&mut self, number: u32, payload: &[u8]) {
        self.key(number, 2);
        self.varint_raw(payload.len() as u64);
        self.0.extend_from_slice(payload);
    }

    pub fn double(&mut self, number: u32, value: f64) {
        self.key(number, 1);
        self.0.extend_from_slice(&value.to_bits().to_le_bytes());
    }
}
