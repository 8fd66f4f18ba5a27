package io.fleetbus.node.tools.command;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Decodes a byte stream read in arbitrary pieces, keeping a character split across two reads whole. */
public final class Utf8Chunks {
  private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
    .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
  private ByteBuffer carry = ByteBuffer.allocate(0);

  public String decode(byte[] bytes, int length) {
    ByteBuffer in = ByteBuffer.allocate(carry.remaining() + length);
    in.put(carry).put(bytes, 0, length).flip();
    CharBuffer out = CharBuffer.allocate(in.remaining() + 1);
    decoder.decode(in, out, false);
    carry = in.slice();
    return out.flip().toString();
  }
}
