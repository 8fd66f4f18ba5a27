package io.fleetbus.shared;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleNameStartingWith;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * shared-codecs/README.md's "must never import", checked on the module's compiled main classes, and no package
 * cycles among its packages.
 */
@AnalyzeClasses(packages = "io.fleetbus.shared", importOptions = ImportOption.DoNotIncludeTests.class)
class SharedPackageRulesTest {
  private static final String SHARED = "io.fleetbus.shared..";

  @ArchTest
  static final ArchRule noPackageCycles = slices().matching("io.fleetbus.shared.(*)..").should().beFreeOfCycles();

  @ArchTest
  static final ArchRule neverImportsWhatSharesIt = noClasses().that().resideInAPackage(SHARED)
    .should().dependOnClassesThat().resideInAnyPackage("io.fleetbus.hub..", "io.fleetbus.node..",
      "io.fleetbus.bench..", "io.fleetbus.testsupport..")
    .because("README: hub, node, bench and tests share this module; it knows none of them");

  @ArchTest
  static final ArchRule noHttpServerSqliteOrOshi = noClasses().that().resideInAPackage(SHARED)
    .should().dependOnClassesThat().resideInAnyPackage("io.vertx.ext.web..", "org.sqlite..", "java.sql..", "oshi..")
    .orShould().dependOnClassesThat(resideInAPackage("io.vertx.core.http..").and(simpleNameStartingWith("HttpServer")))
    .because("README: no HTTP server, SQLite or OSHI in what every process loads");
}
