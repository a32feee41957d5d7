package dev.baton.devapi.protobuf;

import java.util.Arrays;

/**
 * Reads the protobuf wire format field by field (https://protobuf.dev/programming-guides/encoding/): enough to
 * decode the few messages kubectl sends, without generated classes or a protobuf dependency.
 */
final class WireReader {

  static final int VARINT = 0;
  static final int FIXED64 = 1;
  static final int LENGTH_DELIMITED = 2;
  static final int FIXED32 = 5;

  private final byte[] bytes;
  private int position;
  private final int end;

  WireReader(byte[] bytes, int offset, int length) {
    this.bytes = bytes;
    this.position = offset;
    this.end = offset + length;
  }

  boolean hasMore() {
    return position < end;
  }

  /** The next field's key: field number times 8 plus wire type. */
  long key() {
    return varint();
  }

  long varint() {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      byte b = next();
      value |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new IllegalArgumentException("malformed protobuf: a varint longer than 10 bytes");
  }

  byte[] lengthDelimited() {
    int length = Math.toIntExact(varint());
    if (length < 0 || length > end - position) {
      throw new IllegalArgumentException("malformed protobuf: a field runs past the end of its message");
    }
    byte[] value = Arrays.copyOfRange(bytes, position, position + length);
    position += length;
    return value;
  }

  /** Skips a field this reader was not asked to understand. */
  void skip(int wireType) {
    switch (wireType) {
      case VARINT -> varint();
      case FIXED64 -> advance(8);
      case LENGTH_DELIMITED -> lengthDelimited();
      case FIXED32 -> advance(4);
      default -> throw new IllegalArgumentException("malformed protobuf: unknown wire type " + wireType);
    }
  }

  private void advance(int n) {
    if (n > end - position) {
      throw new IllegalArgumentException("malformed protobuf: truncated message");
    }
    position += n;
  }

  private byte next() {
    if (position >= end) {
      throw new IllegalArgumentException("malformed protobuf: truncated message");
    }
    return bytes[position++];
  }
}
