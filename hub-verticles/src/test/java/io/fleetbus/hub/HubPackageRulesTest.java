package io.fleetbus.hub;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.domain.properties.HasParameterTypes;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.fleetbus.hub.calls.CallAuditor;
import io.fleetbus.hub.calls.CallRecords;
import io.fleetbus.hub.calls.IdempotencyKeys;
import io.fleetbus.hub.calls.OutcomeRecovery;
import io.fleetbus.hub.enrollment.EnrollmentBus;
import io.fleetbus.hub.enrollment.EnrollmentService;
import io.fleetbus.hub.enrollment.HelloAdmission;
import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.hub.monitor.MonitorBus;
import io.fleetbus.hub.monitor.MonitorService;
import io.fleetbus.hub.monitor.Tracking;
import io.fleetbus.hub.registry.NodeRecord;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.hub.registry.RegistryService;
import io.fleetbus.hub.routing.RoutePlan;
import io.fleetbus.hub.routing.RoutingBus;
import io.fleetbus.hub.routing.RoutingService;

/**
 * The hub's package rules, checked on its compiled main classes (one import, cached for every rule; no test
 * classes): no package cycles, and hub-verticles/README.md's "must never import" for each package it names.
 * A rule that fails names the offending class, the dependency and the README rule; fix the code, or change the
 * README and this rule together.
 */
@AnalyzeClasses(packages = "io.fleetbus.hub", importOptions = ImportOption.DoNotIncludeTests.class)
class HubPackageRulesTest {
  private static final String HUB = "io.fleetbus.hub.";
  private static final String ALL_HUB = "io.fleetbus.hub..";
  /** Who asks the registry (README, Registry's "Enters"), and every other frontend. */
  private static final String[] CALLERS_AND_FRONTENDS = packages("routing", "approval", "calls", "api", "health",
    "metrics", "mcp", "tools", "edge", "bridge", "ws", "dashboard", "openapi", "cli", "boot");

  @ArchTest
  static final ArchRule noPackageCycles = slices().matching("io.fleetbus.hub.(*)..").should().beFreeOfCycles();

  /** docs/api.md, OpenAPI: a method route comes from the route table, so none exists undocumented. */
  @ArchTest
  static final ArchRule methodRoutesOnlyFromTheRouteTable = noClasses().that().resideOutsideOfPackage(HUB + "apidoc..")
    .should().callMethodWhere(JavaCall.Predicates.target(HasOwner.Predicates.With.owner(
      JavaClass.Predicates.assignableTo(io.vertx.ext.web.Router.class)))
      .and(JavaCall.Predicates.target(HasName.Predicates.nameMatching("get|post|put|delete|patch|head|options")))
      .or(JavaCall.Predicates.target(HasOwner.Predicates.With.owner(
        JavaClass.Predicates.assignableTo(io.vertx.ext.web.Router.class)))
        .and(JavaCall.Predicates.target(HasName.Predicates.name("route")))
        .and(JavaCall.Predicates.target(HasParameterTypes.Predicates.rawParameterTypes(
          io.vertx.core.http.HttpMethod.class, String.class)))))
    .because("docs/api.md: every method route is mounted by ApiRoutes.bind from its description, so it is documented");

  @ArchTest
  static final ArchRule everyClassInAPackageOfItsOwn = noClasses().should().resideInAPackage("io.fleetbus.hub")
    .because("a class in io.fleetbus.hub itself is in no slice, so the cycle check would not see it");

  @ArchTest
  static final ArchRule settingsDependOnNoHubPackage = classes().that().resideInAPackage(HUB + "settings..")
    .should().onlyDependOnClassesThat(resideOutsideOfPackage(ALL_HUB).or(resideInAPackage(HUB + "settings..")))
    .because("settings are read by the composition root (hub.boot) and handed to the verticles");

  @ArchTest
  static final ArchRule nothingDependsOnTheCompositionRoot = noClasses().that().resideOutsideOfPackage(HUB + "boot..")
    .should().dependOnClassesThat().resideInAPackage(HUB + "boot..")
    .because("HubMain and HubAssembly build the hub: everything else is handed what it needs");

  @ArchTest
  static final ArchRule registryNeverImportsItsCallers = noClasses().that().resideInAPackage(HUB + "registry..")
    .should().dependOnClassesThat().resideInAnyPackage(CALLERS_AND_FRONTENDS)
    .because("README, Registry: they ask the registry, not the other way round");

  @ArchTest
  static final ArchRule registryUsesEnrollmentOnlyThroughItsService = onlyThrough("registry", "enrollment",
    "README, Registry: it may import enrollment and monitor (their services), never their verticles' internals",
    EnrollmentService.class, EnrollmentBus.class, HelloAdmission.class);

  @ArchTest
  static final ArchRule registryUsesMonitorOnlyThroughItsService = onlyThrough("registry", "monitor",
    "README, Registry: it may import enrollment and monitor (their services), never their verticles' internals",
    MonitorService.class, MonitorBus.class, Tracking.class);

  @ArchTest
  static final ArchRule monitorNeverImportsTheRegistryOrACaller = noClasses().that().resideInAPackage(HUB + "monitor..")
    .should().dependOnClassesThat().resideInAnyPackage(packages("registry", "routing", "approval", "calls", "api",
      "health", "metrics", "mcp", "tools", "edge", "bridge", "ws", "dashboard", "openapi", "cli", "boot"))
    .because("README, Heartbeat monitor: it tells the registry by address; it never imports a caller");

  @ArchTest
  static final ArchRule monitorReadsProofKeysThroughTheKeyring = onlyThrough("monitor", "enrollment",
    "README, Heartbeat monitor: it reads proof keys through enrollment.NodeKeyring", NodeKeyring.class);

  @ArchTest
  static final ArchRule enrollmentNeverImportsRegistryMonitorOrCallers = noClasses()
    .that().resideInAPackage(HUB + "enrollment..")
    .should().dependOnClassesThat().resideInAnyPackage(packages("registry", "monitor", "routing", "approval", "calls",
      "api"))
    .because("README, Enrollment: the registry and monitor depend on enrollment (Registrations keeps it that way)");

  @ArchTest
  static final ArchRule cliTalksToAHubOnlyOverHttp = classes().that().resideInAPackage(HUB + "cli..")
    .should().onlyDependOnClassesThat(resideOutsideOfPackage(ALL_HUB).or(resideInAPackage(HUB + "cli..")))
    .because("README, CLI: it talks to a hub only over its public HTTP API");

  @ArchTest
  static final ArchRule approvalNeverImportsTheApi = noClasses().that().resideInAPackage(HUB + "approval..")
    .should().dependOnClassesThat().resideInAPackage(HUB + "api..")
    .because("README, Approval: frontends ask through ApprovalBus");

  @ArchTest
  static final ArchRule approvalUsesRoutingOnlyThroughItsService = onlyThrough("approval", "routing",
    "README, Approval: never routing's internals", RoutingService.class, RoutingBus.class, RoutePlan.class);

  @ArchTest
  static final ArchRule approvalNeverImportsTheCallStateBehindTheLedger = noClasses()
    .that().resideInAPackage(HUB + "approval..")
    .should().dependOnClassesThat(belongToAnyOf(CallRecords.class, IdempotencyKeys.class, OutcomeRecovery.class,
      CallAuditor.class))
    .because("README, Approval: a call leaves through CallLedger, never the call-state classes behind it");

  @ArchTest
  static final ArchRule callsNeverImportTheApiOrApproval = noClasses().that().resideInAPackage(HUB + "calls..")
    .should().dependOnClassesThat().resideInAnyPackage(packages("api", "approval"))
    .because("README, Calls: the Approval record is in hub.consent; approval hands the ledger its functions");

  @ArchTest
  static final ArchRule callsUseRoutingOnlyThroughItsService = onlyThrough("calls", "routing",
    "README, Calls: never routing's internals (ApprovedUntil: an approved call's validity, for its signature)",
    RoutingService.class, RoutingBus.class, io.fleetbus.hub.routing.ApprovedUntil.class);

  @ArchTest
  static final ArchRule routingNeverImportsPeopleOrCallRecords = noClasses().that().resideInAPackage(HUB + "routing..")
    .should().dependOnClassesThat().resideInAnyPackage(packages("approval", "consent", "calls", "api"))
    .because("README, Routing: routing knows nodes, not people or call records");

  @ArchTest
  static final ArchRule routingUsesTheRegistryOnlyThroughItsService = onlyThrough("routing", "registry",
    "README, Routing: from the registry only its service and NodeRecord (and the view of its records the router reads"
      + " on each call, issue 37)", RegistryService.class, RegistryBus.class, NodeRecord.class,
    io.fleetbus.hub.registry.NodeView.class);

  @ArchTest
  static final ArchRule edgeDecidesNothingAboutCalls = noClasses().that().resideInAPackage(HUB + "edge..")
    .should().dependOnClassesThat().resideInAnyPackage(packages("approval", "consent", "calls", "routing", "api"))
    .because("README, Edge endpoint: the endpoint carries messages, it decides nothing about calls");

  @ArchTest
  static final ArchRule edgeUsesTheRegistryOnlyThroughItsBus = onlyThrough("edge", "registry",
    "README, Edge endpoint: from the registry only RegistryBus", RegistryBus.class);

  /** Classes of package {@code from} use package {@code to} only through {@code allowed} (and their nested types). */
  private static ArchRule onlyThrough(String from, String to, String because, Class<?>... allowed) {
    return noClasses().that().resideInAPackage(HUB + from + "..")
      .should().dependOnClassesThat(resideInAPackage(HUB + to + "..").and(not(belongToAnyOf(allowed))))
      .because(because);
  }

  private static String[] packages(String... names) {
    String[] patterns = new String[names.length];
    for (int i = 0; i < names.length; i++) {
      patterns[i] = HUB + names[i] + "..";
    }
    return patterns;
  }
}
