package io.fleetbus.node.tools.logs;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.util.FileSize;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/**
 * The node's own log file, {@code <dataDir>/logs/node.log} (rolled at 10 MB, three old files kept),
 * which get_agent_logs reads and clean_disk_space's {@code agent_logs} target prunes.
 */
public final class AgentLogFile {
  public static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSS} %-5level [%thread] %logger{0} - %msg%n";

  private AgentLogFile() {
  }

  public static Path of(Path dataDir) {
    return dataDir.resolve("logs").resolve("node.log");
  }

  /** Adds the file appender to the root logger (once per JVM; the console appender stays). */
  public static void install(Path dataDir) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext lc)) {
      return;
    }
    Logger root = lc.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    if (root.getAppender("NODE-FILE") != null) {
      return;
    }
    Path file = of(dataDir).toAbsolutePath();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(lc);
    encoder.setPattern(PATTERN);
    encoder.start();
    RollingFileAppender<ILoggingEvent> appender = new RollingFileAppender<>();
    appender.setContext(lc);
    appender.setName("NODE-FILE");
    appender.setFile(file.toString());
    FixedWindowRollingPolicy rolling = new FixedWindowRollingPolicy();
    rolling.setContext(lc);
    rolling.setParent(appender);
    rolling.setFileNamePattern(file.getParent().resolve("node.%i.log").toString());
    rolling.setMinIndex(1);
    rolling.setMaxIndex(3);
    rolling.start();
    SizeBasedTriggeringPolicy<ILoggingEvent> trigger = new SizeBasedTriggeringPolicy<>();
    trigger.setContext(lc);
    trigger.setMaxFileSize(FileSize.valueOf("10MB"));
    trigger.start();
    appender.setRollingPolicy(rolling);
    appender.setTriggeringPolicy(trigger);
    appender.setEncoder(encoder);
    appender.start();
    root.addAppender(appender);
  }
}
