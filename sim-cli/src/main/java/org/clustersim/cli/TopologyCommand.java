package org.clustersim.cli;

import java.io.PrintWriter;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.clustersim.topology.ClusterSpec;
import org.clustersim.topology.Link;
import org.clustersim.topology.Topology;
import org.clustersim.topology.Vertex;
import org.clustersim.topology.VertexKind;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code clustersim topology}: what a cluster's graph holds, and with {@code --links} every link by name. */
@Command(name = "topology", mixinStandardHelpOptions = true,
        description = "Describe a cluster's graph; --links lists every link with its endpoints, class and capacity, "
                + "and for a scenario the traffic classes its step puts on each link.")
public final class TopologyCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PRESET_OR_SCENARIO", description = "A preset name, a scenario file or a "
            + "shared-cluster file (its whole cluster).")
    String cluster;

    @Option(names = "--links", description = "List every link (names usable in faults, --fail and --degrade).")
    boolean links;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        java.nio.file.Path file = java.nio.file.Path.of(cluster);
        org.clustersim.study.scenario.SharedScenario shared = null;
        if (java.nio.file.Files.isRegularFile(file)) {
            var tree = new org.clustersim.core.input.SourceTreeReader().read(file);
            if (org.clustersim.study.scenario.SharedScenarioReader.isShared(tree)) {
                // a shared-cluster file: its whole cluster, the names its faults and whatif flags use
                shared = new org.clustersim.study.scenario.SharedScenarioReader().read(file, tree);
            }
        }
        ClusterSpec c = shared != null ? shared.cluster() : ClusterArgument.resolve("PRESET_OR_SCENARIO", cluster);
        java.util.List<java.util.Set<String>> traffic = null;
        Topology t;
        if (shared != null) {
            t = WorkEstimate.build(c.name(), c);
        } else if (links && java.nio.file.Files.isRegularFile(file)) {
            // a scenario: also say which traffic classes its step puts on each link
            var step = WorkEstimate.step(new org.clustersim.study.scenario.ScenarioReader()
                    .read(java.nio.file.Path.of(cluster)));
            t = step.topology();
            traffic = org.clustersim.cli.output.LinkTraffic.classes(step.build().graph(), t);
        } else {
            t = WorkEstimate.build(c.name(), c);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "%s: %s%n", c.name(), c.describe());
        Map<VertexKind, Integer> vertices = new EnumMap<>(VertexKind.class);
        for (Vertex v : t.vertices()) {
            vertices.merge(v.kind(), 1, Integer::sum);
        }
        // by link class, the names the summary, the report and whatif --sweep links=CLASS use
        Map<String, Integer> linkCount = new java.util.HashMap<>();
        for (Link l : t.links()) {
            linkCount.merge(org.clustersim.study.whatif.Cable.classOf(l), 1, Integer::sum);
        }
        out.printf(Locale.ROOT, "vertices: %s%n", vertices);
        out.printf(Locale.ROOT, "directed links: %s%n", String.join(", ", org.clustersim.study.whatif.Cable.CLASSES
                .stream().filter(linkCount::containsKey).map(k -> k + " " + linkCount.get(k)).toList()));
        if (links) {
            out.printf(Locale.ROOT, "%-44s %-20s %-20s %-14s %8s %10s%s%n", "link", "from", "to", "class", "GB/s",
                    "latency ns", traffic == null ? "" : "  traffic (static routes)");
            for (Link l : t.links()) {
                out.printf(Locale.ROOT, "%-44s %-20s %-20s %-14s %8.1f %10d%s%n", l.name(), l.src().name(),
                        l.dst().name(), org.clustersim.study.whatif.Cable.classOf(l), l.bandwidthBytesPerS() / 1e9,
                        l.latencyNs(), traffic == null ? "" : "  " + (traffic.get(l.id()).isEmpty() ? "-"
                                : String.join(",", traffic.get(l.id()))));
            }
        }
        out.flush();
        return 0;
    }
}
