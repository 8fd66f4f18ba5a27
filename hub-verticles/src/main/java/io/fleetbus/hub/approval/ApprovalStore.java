package io.fleetbus.hub.approval;

import io.fleetbus.hub.consent.Approval;
import io.vertx.core.Future;
import java.util.List;

/**
 * Where approvals live beyond the hub's memory, so a restart (or, later, another hub) loses none.
 * A save completes only once the approval is durable.
 */
public interface ApprovalStore {

  Future<Void> save(Approval approval);

  /** Every pending approval and the most recent decided ones (up to {@code recentDecided}), oldest first. */
  Future<List<Approval>> load(int recentDecided);
}
