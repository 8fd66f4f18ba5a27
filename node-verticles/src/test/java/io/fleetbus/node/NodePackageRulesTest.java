package io.fleetbus.node;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.fleetbus.node.trust.InstanceKeys;

/**
 * The node's package rules, checked on its compiled main classes (one import, cached for every rule; no test
 * classes): no package cycles, and node-verticles/README.md's "must never import". The composition roots (NodeMain,
 * NodeSupervisor, NodeAgentVerticle) live in {@code node.boot}, what the conf says in {@code node.settings}, so no
 * domain package needs the package that builds it. A rule that fails names the offending class, the dependency and
 * the README rule; fix the code, or change the README and this rule together.
 */
@AnalyzeClasses(packages = "io.fleetbus.node", importOptions = ImportOption.DoNotIncludeTests.class)
class NodePackageRulesTest {
  private static final String NODE = "io.fleetbus.node.";

  @ArchTest
  static final ArchRule noPackageCycles = slices().matching("io.fleetbus.node.(*)..").should().beFreeOfCycles();

  @ArchTest
  static final ArchRule everyClassInAPackageOfItsOwn = noClasses().should().resideInAPackage("io.fleetbus.node")
    .because("a class in io.fleetbus.node itself is in no slice, so the cycle check would not see it");

  @ArchTest
  static final ArchRule nothingDependsOnTheCompositionRoot = noClasses().that().resideOutsideOfPackage(NODE + "boot..")
    .should().dependOnClassesThat().resideInAPackage(NODE + "boot..")
    .because("NodeMain, NodeSupervisor and NodeAgentVerticle build the node: everything else is handed what it needs");

  @ArchTest
  static final ArchRule settingsDependOnNoOtherNodePackage = classes().that().resideInAPackage(NODE + "settings..")
    .should().onlyDependOnClassesThat(resideOutsideOfPackage("io.fleetbus.node..")
      .or(resideInAPackage(NODE + "settings..")).or(belongToAnyOf(InstanceKeys.class)))
    .because("settings are read from the conf (a new process's instance id from InstanceKeys) and handed to the rest");

  @ArchTest
  static final ArchRule neverImportsHubBenchOrTests = noClasses().that().resideInAPackage("io.fleetbus.node..")
    .should().dependOnClassesThat().resideInAnyPackage("io.fleetbus.hub..", "io.fleetbus.bench..",
      "io.fleetbus.testsupport..")
    .because("node-verticles/README.md: must never import the hub, the bench or the test helpers");

  @ArchTest
  static final ArchRule toolsSeeACallOnlyThroughCallContext = noClasses()
    .that().resideInAPackage("io.fleetbus.node.tools..")
    .should().dependOnClassesThat().resideInAnyPackage("io.fleetbus.node.agent..", "io.fleetbus.node.trust..")
    .because("node-verticles/README.md: tools see a call only through CallContext");
}
