package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.node.tools.sandbox.PathScope;
import java.util.Map;

/** The file tools, every one behind the node's {@link PathScope}. */
public final class FileTools {
  private FileTools() {
  }

  public static Map<String, ToolHandler> handlers(PathScope scope, HostCommands host) {
    return Map.of(
      "list_directory", new ListDirectoryTool(scope),
      "read_file", new ReadFileTool(scope),
      "glob_files", new GlobFilesTool(scope),
      "grep_files", new GrepFilesTool(scope, host),
      "write_file", new WriteFileTool(scope),
      "edit_file", new EditFileTool(scope, false),
      "multi_edit", new EditFileTool(scope, true),
      "create_dir", new CreateDirTool(scope),
      "delete_path", new DeletePathTool(scope));
  }
}
