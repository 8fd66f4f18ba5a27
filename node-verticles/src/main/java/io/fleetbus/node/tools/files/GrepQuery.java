package io.fleetbus.node.tools.files;

import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.regex.Pattern;

/** What grep_files looks for: compiled once, checked before any engine runs. */
record GrepQuery(Path root, String regex, Pattern pattern, String glob, PathMatcher globMatcher,
                 boolean caseInsensitive, int offset, int headLimit) {

  /** Matches wanted: those to skip, those to return, and one more to know whether more exist. */
  int wanted() {
    return offset + headLimit + 1;
  }

  /** A glob with a '/' is matched against the path below the root, as rg does; else against the file name. */
  boolean nameMatches(Path file) {
    if (globMatcher == null) {
      return true;
    }
    return globMatcher.matches(glob.contains("/") ? root.relativize(file) : file.getFileName());
  }
}
