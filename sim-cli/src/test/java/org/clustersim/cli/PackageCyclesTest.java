package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The packages of the main code of every module form no cycle (issue 29): each package can be
 * understood, tested and moved to another module with only the packages below it. The test sits
 * in the top module and reads the sources of its siblings ({@code ../<module>/src/main/java}), so
 * a cycle between modules' packages is caught as well as one inside a module.
 */
class PackageCyclesTest {
    private static final Path REPO = Path.of("..");

    @Test
    void noPackageOfAnyModuleIsInACycle() throws IOException {
        List<Path> roots;
        try (Stream<Path> modules = Files.list(REPO)) {
            roots = modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).sorted().toList();
        }
        assertTrue(roots.size() >= 6, "the sources of every module: " + roots);
        for (Path root : roots) {
            assertFalse(PackageGraph.ofSourceRoots(List.of(root)).packages().isEmpty(), root + " declares packages");
        }
        PackageGraph graph = PackageGraph.ofSourceRoots(roots);
        assertTrue(graph.packages().size() >= 20, "packages read: " + graph.packages());
        assertTrue(graph.uses("org.clustersim.cli", "org.clustersim.core"), "the command line runs a Simulation");
        assertEquals(List.of(), graph.cycles(), "package cycles; move the type to the package that owns it");
    }

    /**
     * The study layer sits between the model and the command line: nothing in sim-study uses a
     * package of sim-cli, and sim-spark builds on the study layer's job-engine interface, with the
     * command line on its class path at run time only (so that its jar can run under spark-submit).
     */
    @Test
    void theStudyLayerAndTheSparkEngineDoNotBuildOnTheCommandLine() throws IOException {
        PackageGraph graph = PackageGraph.ofSourceRoots(List.of(REPO.resolve("sim-study/src/main/java"),
                REPO.resolve("sim-spark/src/main/java"), REPO.resolve("sim-cli/src/main/java")));
        for (String user : graph.packages()) {
            if (!user.startsWith("org.clustersim.cli")) {
                for (String used : graph.packages()) {
                    if (used.startsWith("org.clustersim.cli")) {
                        assertFalse(graph.uses(user, used), user + " uses the command line's " + used);
                    }
                }
            }
        }
        assertTrue(graph.uses("org.clustersim.spark", "org.clustersim.study.engine"), "the Spark engine is a TaskEngine");
        String pom = Files.readString(REPO.resolve("sim-spark/pom.xml"));
        java.util.regex.Matcher cli = java.util.regex.Pattern.compile(
                "<artifactId>sim-cli</artifactId>\\s*(<scope>(\\w+)</scope>)?").matcher(pom);
        while (cli.find()) {
            assertEquals("runtime", cli.group(2), "sim-spark may take sim-cli at runtime scope only");
        }
    }

    @Test
    void aCycleIsNamedWithTheFilesThatMakeIt() {
        PackageGraph graph = PackageGraph.of(Map.of(
                "a/Top.java", "package x.a;\nimport x.a.b.Part;\nclass Top { Part p; }",
                "a/b/Part.java", "package x.a.b;\nclass Part { Object o = x.c.Leaf.make(); }",
                "c/Leaf.java", "package x.c;\nimport static x.a.Top.NAME;\nclass Leaf {}",
                "d/Apart.java", "package x.d;\nimport x.c.*;\nclass Apart {}"));
        assertTrue(graph.uses("x.a.b", "x.c"), "a fully qualified reference is a use");
        assertTrue(graph.uses("x.c", "x.a"), "a static import is a use of the class's package");
        assertTrue(graph.uses("x.d", "x.c"), "a wildcard import is a use");
        List<String> cycles = graph.cycles();
        assertEquals(1, cycles.size(), cycles.toString());
        assertTrue(cycles.get(0).startsWith("cycle x.a -(Top.java)-> x.a.b -(Part.java)-> x.c -(Leaf.java)-> x.a;"),
                cycles.get(0));
        assertFalse(cycles.get(0).contains("x.d"), "a package that only uses the cycle is outside it");
    }

    @Test
    void commentsAndLiteralsAreNoDependency() {
        PackageGraph graph = PackageGraph.of(Map.of(
                "a/A.java", """
                        package x.a;
                        /** Unlike {@link x.b.B}, see x.b. */
                        class A {
                            // x.b.B.make()
                            String s = "x.b.B \\" x.b";
                            char q = '"';
                            String t = \"""
                                x.b.B
                                \""";
                            /* x.b */ int n = 1;
                        }
                        """,
                "b/B.java", "package x.b;\nimport x.a.A;\nclass B {}"));
        assertTrue(graph.uses("x.b", "x.a"));
        assertFalse(graph.uses("x.a", "x.b"), "only comments and literals name x.b");
        assertEquals(List.of(), graph.cycles());
    }
}
