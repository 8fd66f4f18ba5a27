package io.fleetbus.bench.http;

import io.fleetbus.bench.load.CallPath;
import io.vertx.core.Future;
import java.util.List;

/** One round of a fan-out: the same tool on every node at once (one HTTP call per node); done when all answered. */
public final class FanOutPath implements CallPath {
  private final List<ToolCallPath> perNode;

  public FanOutPath(List<ToolCallPath> perNode) {
    this.perNode = List.copyOf(perNode);
  }

  @Override
  public Future<Void> call() {
    return Future.all(perNode.stream().map(ToolCallPath::call).toList()).mapEmpty();
  }
}
