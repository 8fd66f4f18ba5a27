package io.fleetbus.shared.catalog;

import java.util.Collection;
import java.util.Locale;

/** User roles → the highest tool tier they may call, and node capability tiers → what they may run. */
public final class Tiers {
  private Tiers() {
  }

  public static final String VIEWER = "viewer";
  public static final String OPERATOR = "operator";
  public static final String ADMIN = "admin";
  public static final String APPROVER = "approver";

  /** The highest tool tier any of these roles allows (0: none). */
  public static int maxToolTier(Collection<String> roles) {
    int max = 0;
    for (String role : roles) {
      max = Math.max(max, switch (role.toLowerCase(Locale.ROOT)) {
        case ADMIN -> 3;
        case OPERATOR -> 2;
        case VIEWER -> 1;
        default -> 0;
      });
    }
    return max;
  }

  /** The least role that may call a tool of this tier. */
  public static String roleFor(int tier) {
    return switch (tier) {
      case 1 -> VIEWER;
      case 2 -> OPERATOR;
      default -> ADMIN;
    };
  }

  public static boolean mayDecideApprovals(Collection<String> roles) {
    return roles.contains(APPROVER) || roles.contains(ADMIN);
  }

  /** Node capability tiers: root runs everything, sudo tiers 1-3 within its walls, unprivileged tier 1 only. */
  public static int maxToolTierForCapability(String capabilityTier) {
    return "unprivileged".equals(capabilityTier) ? 1 : 3;
  }
}
