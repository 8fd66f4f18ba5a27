package io.fleetbus.hub.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code --since}: how far back, as a duration before now or as a moment, read in the local zone unless it names one. */
final class Since {
  private static final Pattern AMOUNT = Pattern.compile("(\\d+)\\s*(s|sec|secs|m|min|mins|h|hr|hrs|d|day|days|w)",
    Pattern.CASE_INSENSITIVE);
  private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd[ ]['T']HH:mm[:ss]", Locale.ROOT);

  private Since() {
  }

  /** Epoch milliseconds; an {@link IllegalArgumentException} says what was not understood. */
  static long parse(String text, ZoneId zone, long now) {
    String s = text.strip();
    Matcher m = AMOUNT.matcher(s);
    if (m.matches()) {
      return now - unit(m.group(2)).multipliedBy(Long.parseLong(m.group(1))).toMillis();
    }
    if (s.chars().allMatch(Character::isDigit) && !s.isEmpty()) {
      return Long.parseLong(s);
    }
    try {
      if (s.startsWith("P") || s.startsWith("p")) {
        return now - Duration.parse(s).toMillis();
      }
      if (s.endsWith("Z") || s.matches(".*T.*[+-]\\d\\d:?\\d\\d$")) {
        return OffsetDateTime.parse(s).toInstant().toEpochMilli();
      }
      if (s.matches("\\d{4}-\\d\\d-\\d\\d")) {
        return LocalDate.parse(s).atStartOfDay(zone).toInstant().toEpochMilli();
      }
      if (s.matches("\\d\\d?:\\d\\d(:\\d\\d)?")) {
        return LocalDate.ofInstant(Instant.ofEpochMilli(now), zone).atTime(LocalTime.parse(s.length() == 4 ? "0" + s : s))
          .atZone(zone).toInstant().toEpochMilli();
      }
      return LocalDateTime.parse(s, LOCAL).atZone(zone).toInstant().toEpochMilli();
    } catch (DateTimeParseException | ArithmeticException e) {
      throw new IllegalArgumentException("'" + text + "' is neither a duration (30s, 15m, 2h, 7d, PT90M) nor a time"
        + " (2026-11-25 18:00, 2026-11-25, 18:00, 2026-11-25T18:00:00Z, epoch milliseconds)");
    }
  }

  private static Duration unit(String u) {
    return switch (u.toLowerCase(Locale.ROOT).charAt(0)) {
      case 's' -> Duration.ofSeconds(1);
      case 'm' -> Duration.ofMinutes(1);
      case 'h' -> Duration.ofHours(1);
      case 'd' -> Duration.ofDays(1);
      default -> Duration.ofDays(7);
    };
  }
}
