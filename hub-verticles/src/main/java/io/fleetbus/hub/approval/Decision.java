package io.fleetbus.hub.approval;

import java.util.List;

/**
 * A person's answer to a pending approval, as a frontend received it.
 *
 * @param roles          the decider's roles (deciding needs approver or admin, unless the requester self-confirms)
 * @param viaElicitation the requester's own answer to an MCP elicitation (counts only where the conf allows it)
 */
public record Decision(String approvalId, boolean approve, String decider, List<String> roles, String reason,
                       boolean viaElicitation) {

  public Decision {
    roles = roles == null ? List.of() : List.copyOf(roles);
  }
}
