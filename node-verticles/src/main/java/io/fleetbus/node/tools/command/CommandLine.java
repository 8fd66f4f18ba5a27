package io.fleetbus.node.tools.command;

import io.fleetbus.shared.bus.FailureCode;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a command line into argv the way a person reads it: words separated by blanks, single
 * quotes keep everything literal, double quotes keep blanks, a backslash escapes the next character.
 * No shell ever sees the result, so operators such as {@code ; | & $( `} are refused outright
 * rather than passed on as text a reader might mistake for shell syntax.
 */
public final class CommandLine {
  private static final String OPERATORS = ";|&<>`$\n\r";

  private CommandLine() {
  }

  public static List<String> split(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == 0) {
        throw FailureCode.BAD_REQUEST.exception("command contains a NUL character");
      }
      if (quote == '\'') {
        if (c == '\'') {
          quote = 0;
        } else {
          word.append(c);
        }
        continue;
      }
      if (OPERATORS.indexOf(c) >= 0) {
        throw FailureCode.BAD_REQUEST.exception("command contains the shell operator '" + printable(c)
          + "' at position " + i + ": run_command runs one program without a shell");
      }
      if (quote == '"') {
        if (c == '"') {
          quote = 0;
        } else if (c == '\\' && i + 1 < line.length() && "\"\\".indexOf(line.charAt(i + 1)) >= 0) {
          word.append(line.charAt(++i));
        } else {
          word.append(c);
        }
        continue;
      }
      if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (c == '\\') {
        if (i + 1 >= line.length()) {
          throw FailureCode.BAD_REQUEST.exception("command ends with a lone backslash");
        }
        char escaped = line.charAt(++i);
        // only single quotes make an operator literal; an escaped NUL or operator is refused like a bare one
        if (escaped == 0 || OPERATORS.indexOf(escaped) >= 0) {
          throw FailureCode.BAD_REQUEST.exception("command escapes the character '" + printable(escaped)
            + "' at position " + i + ": put literal operators in single quotes");
        }
        word.append(escaped);
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (quote != 0) {
      throw FailureCode.BAD_REQUEST.exception("command has an unclosed " + (quote == '"' ? "double" : "single") + " quote");
    }
    if (inWord) {
      words.add(word.toString());
    }
    if (words.isEmpty()) {
      throw FailureCode.BAD_REQUEST.exception("command is empty");
    }
    return words;
  }

  /** Extra argv entries are passed as they are, but still never with NUL or operator characters. */
  public static void checkArgument(String arg) {
    for (int i = 0; i < arg.length(); i++) {
      char c = arg.charAt(i);
      if (c == 0 || OPERATORS.indexOf(c) >= 0) {
        throw FailureCode.BAD_REQUEST.exception("argument '" + arg + "' contains the character '" + printable(c)
          + "', which run_command refuses");
      }
    }
  }

  private static String printable(char c) {
    return switch (c) {
      case '\n' -> "\\n";
      case '\r' -> "\\r";
      case 0 -> "\\0";
      default -> String.valueOf(c);
    };
  }
}
