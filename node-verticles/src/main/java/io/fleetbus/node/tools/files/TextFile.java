package io.fleetbus.node.tools.files;

import io.fleetbus.shared.bus.FailureCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** Reading a whole text file for an edit: regular, not too big, valid UTF-8 — or a clear refusal. */
final class TextFile {
  static final long MAX_EDIT_BYTES = 10L * 1024 * 1024;

  private TextFile() {
  }

  static String read(Path file, String shown) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw FailureCode.BAD_REQUEST.exception("path '" + shown + "' is not a regular file");
    }
    long size = Files.size(file);
    if (size > MAX_EDIT_BYTES) {
      throw FailureCode.TOO_LARGE.exception("path '" + shown + "' has " + size + " bytes; edits work on files up to "
        + MAX_EDIT_BYTES + " bytes");
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(Files.readAllBytes(file))).toString();
    } catch (CharacterCodingException e) {
      throw FailureCode.BAD_REQUEST.exception("path '" + shown + "' is not UTF-8 text; it cannot be edited as text");
    }
  }

  /** The current text of a file about to be overwritten, or "" when it does not exist yet. */
  static String currentOrEmpty(Path file, String shown) throws IOException {
    return Files.exists(file, LinkOption.NOFOLLOW_LINKS) ? read(file, shown) : "";
  }
}
