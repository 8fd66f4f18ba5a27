package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Base64;

/**
 * read_file: text as lines (offset/limit, 100 KB per answer), anything else as base64 with its size.
 * Only regular files: a FIFO or a device would block or never end.
 */
final class ReadFileTool implements ToolHandler {
  static final int TEXT_CAP_BYTES = 100 * 1024;
  /** 75 KB of bytes is 100 KB of base64. */
  static final int BINARY_CAP_BYTES = 75 * 1024;
  private static final int SNIFF_BYTES = 8192;

  private final PathScope scope;

  ReadFileTool(PathScope scope) {
    this.scope = scope;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) throws IOException {
    Path file = scope.existing("path", args.getString("path"));
    if (Files.isDirectory(file)) {
      throw FailureCode.BAD_REQUEST.exception("path '" + args.getString("path") + "' is a folder; list_directory lists it");
    }
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw FailureCode.BAD_REQUEST.exception("path '" + args.getString("path") + "' is not a regular file (a device,"
        + " FIFO or socket); read_file reads regular files only");
    }
    long size = Files.size(file);
    JsonObject out = new JsonObject().put("path", file.toString()).put("size_bytes", size);
    return isText(file) ? text(file, args.getInteger("offset"), args.getInteger("limit"), out) : binary(file, size, out);
  }

  private static boolean isText(Path file) throws IOException {
    byte[] head;
    try (InputStream in = Files.newInputStream(file)) {
      head = in.readNBytes(SNIFF_BYTES);
    }
    for (byte b : head) {
      if (b == 0) {
        return false;
      }
    }
    int end = head.length;
    // a multi-byte character cut by the sniff window is not a reason to call the file binary
    for (int back = 0; back < 3 && end > 0 && (head[end - 1] & 0xC0) == 0x80; back++) {
      end--;
    }
    if (end > 0 && (head[end - 1] & 0xC0) == 0xC0) {
      end--;
    }
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(head, 0, end));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  private static JsonObject text(Path file, int offset, int limit, JsonObject out) throws IOException {
    StringBuilder content = new StringBuilder();
    int bytes = 0;
    int returned = 0;
    boolean more = false;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8))) {
      for (int skipped = 0; skipped < offset; skipped++) {
        if (r.readLine() == null) {
          break;
        }
      }
      for (String line; (line = r.readLine()) != null; ) {
        int lineBytes = line.getBytes(StandardCharsets.UTF_8).length + 1;
        if (returned >= limit || bytes + lineBytes > TEXT_CAP_BYTES) {
          more = true;
          break;
        }
        content.append(line).append('\n');
        bytes += lineBytes;
        returned++;
      }
    }
    out.put("encoding", "utf-8").put("content", content.toString()).put("offset", offset).put("lines", returned)
      .put("truncated", more);
    return more ? out.put("next_offset", offset + returned) : out;
  }

  private static JsonObject binary(Path file, long size, JsonObject out) throws IOException {
    byte[] head;
    try (InputStream in = Files.newInputStream(file)) {
      head = in.readNBytes(BINARY_CAP_BYTES);
    }
    return out.put("encoding", "base64").put("content", Base64.getEncoder().encodeToString(head))
      .put("truncated", size > head.length);
  }
}
