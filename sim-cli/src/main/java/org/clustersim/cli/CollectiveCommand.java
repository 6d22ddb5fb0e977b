package org.clustersim.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.clustersim.core.Simulation;
import org.clustersim.core.input.InputException;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.CollectiveStudy;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.topology.ClusterSpec;
import org.clustersim.topology.Link;
import org.clustersim.topology.Topology;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code clustersim collective}: an nccl-tests-style sweep of one collective over a range of
 * sizes, each size simulated on its own, printing time, algorithm bandwidth and bus bandwidth.
 */
@Command(name = "collective", mixinStandardHelpOptions = true,
        description = "Simulate one collective over a range of sizes, nccl-tests style (time, algbw, busbw).")
public final class CollectiveCommand implements Callable<Integer> {
    @Option(names = "--cluster", required = true, paramLabel = "PRESET_OR_FILE",
            description = "A preset (see 'clustersim presets') or a scenario file whose cluster is used.")
    String cluster;

    @Option(names = "--op", paramLabel = "OP", defaultValue = "allreduce",
            description = "allreduce, reducescatter, allgather, alltoall, broadcast, reduce or sendrecv "
                    + "(default: ${DEFAULT-VALUE}).")
    String op;

    @Option(names = "--ranks", paramLabel = "RANKS", defaultValue = "all",
            description = "GPUs taking part: all, 0-7, 0,2,4, node:3, rail:0 (default: ${DEFAULT-VALUE}).")
    String ranks;

    @Option(names = "--algo", paramLabel = "ALGO", defaultValue = "auto",
            description = "ring, tree, halving-doubling, direct, hierarchical, nvls, pxn, torus, torus-axes or auto: the cheapest that NCCL runs for the operation (default: ${DEFAULT-VALUE}).")
    String algo;

    @Option(names = "--min", paramLabel = "SIZE", defaultValue = "8B", description = "Smallest size (default: 8B).")
    String min;

    @Option(names = "--max", paramLabel = "SIZE", defaultValue = "8GiB", description = "Largest size (default: 8GiB).")
    String max;

    @Option(names = "--factor", paramLabel = "F", defaultValue = "2", description = "Size multiplier (default: 2).")
    int factor;

    @Option(names = "--fidelity", paramLabel = "MODEL", defaultValue = "flow",
            description = "flow (shared links) or analytical (default: ${DEFAULT-VALUE}).")
    String fidelity;

    @Option(names = "--routing", paramLabel = "POLICY", defaultValue = "ecmp",
            description = "ecmp (static hash) or adaptive (least-loaded path when a flow starts); default: ${DEFAULT-VALUE}.")
    String routing;

    @Option(names = "--fail", paramLabel = "LINK", description = "Take a link down for the whole run (repeatable).")
    List<String> fail = new ArrayList<>();

    @Option(names = "--degrade", paramLabel = "LINK=FRACTION",
            description = "Run a link at a fraction of its capacity (repeatable).")
    List<String> degrade = new ArrayList<>();

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the rows as a JSON array.")
    Path json;

    @Spec
    CommandSpec spec;

    /**
     * One row.
     *
     * @param bytes      size S
     * @param timeUs     simulated time
     * @param algbwGBps  S / time
     * @param busbwGBps  algbw times the operation's bus factor
     * @param algorithm  algorithm used
     * @param protocol   protocol used
     */
    public record Row(long bytes, double timeUs, double algbwGBps, double busbwGBps, String algorithm,
                      String protocol) {
    }

    @Override
    public Integer call() {
        CollectiveOp operation = CollectiveOp.byId(op).orElseThrow(() -> new InputException("--op: unknown "
                + "operation '" + op + "'; expected allreduce, reducescatter, allgather, alltoall, broadcast, reduce "
                + "or sendrecv"));
        if (!Collectives.names().contains(algo)) {
            throw new InputException("--algo: unknown algorithm '" + algo + "'; expected one of "
                    + String.join(", ", Collectives.names()));
        }
        Simulation.Fidelity model = switch (fidelity) {
            case "flow" -> Simulation.Fidelity.FLOW;
            case "analytical" -> Simulation.Fidelity.ANALYTICAL;
            default -> throw new InputException("--fidelity: expected flow or analytical, got '" + fidelity + "'");
        };
        Simulation.Routing policy = switch (routing) {
            case "ecmp" -> Simulation.Routing.ECMP;
            case "adaptive" -> Simulation.Routing.ADAPTIVE;
            default -> throw new InputException("--routing: expected ecmp or adaptive, got '" + routing + "'");
        };
        long from = ByteSize.parse("--min", min);
        long to = ByteSize.parse("--max", max);
        if (from < 1) {
            throw new InputException("--min " + min + ": expected a size of at least 1 byte");
        }
        if (to < from) {
            throw new InputException("--max " + max + ": expected at least --min " + min + " (" + from + " bytes), found "
                    + to + " bytes");
        }
        if (factor < 2) {
            throw new InputException("--factor: expected at least 2, got " + factor);
        }
        OutputFiles.check("--json", json);
        ClusterSpec clusterSpec = ClusterArgument.resolve("--cluster", cluster);
        Topology topology = WorkEstimate.build(clusterSpec.name(), clusterSpec);
        CommGroup group = new CommGroup(RankList.parse(ranks, topology));
        if (group.size() < 2) {
            throw new InputException("--ranks " + ranks + ": selects " + group.size() + " GPU; a collective needs "
                    + "at least 2 ranks");
        }
        List<Simulation.LinkEvent> events = new ArrayList<>();
        for (String name : fail) {
            events.add(new Simulation.LinkEvent(link(topology, "--fail", name).id(), 0, 0, 0));
        }
        for (String d : degrade) {
            int eq = d.lastIndexOf('=');
            if (eq < 0) {
                throw new InputException("--degrade: expected LINK=FRACTION, got '" + d + "'");
            }
            double f;
            try {
                f = Double.parseDouble(d.substring(eq + 1));
            } catch (NumberFormatException e) {
                f = -1;
            }
            if (!(f > 0 && f <= 1)) {
                throw new InputException("--degrade: the fraction must be in (0, 1], got '" + d.substring(eq + 1) + "'");
            }
            events.add(new Simulation.LinkEvent(link(topology, "--degrade", d.substring(0, eq)).id(), 0, f, 0));
        }
        CollectiveStudy study = new CollectiveStudy(topology, model, policy, events);
        PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "# %s over %d ranks of %s, %s fidelity, %s routing%s%n", operation.id(), group.size(),
                clusterSpec.name(), fidelity, routing, events.isEmpty() ? "" : ", " + events.size() + " link fault(s)");
        out.printf(Locale.ROOT, "# %12s %12s %10s %10s  %s%n", "size (B)", "time (us)", "algbw GB/s", "busbw GB/s",
                "algorithm");
        List<Row> rows = new ArrayList<>();
        for (long s = from; s <= to; s = s > Long.MAX_VALUE / factor ? Long.MAX_VALUE : s * factor) {
            Collectives.Choice choice;
            try {
                choice = Collectives.plan(algo, operation, group, s, topology);
            } catch (IllegalArgumentException e) {
                throw new InputException("--algo: " + e.getMessage());
            }
            long ns = study.run(List.of(new CollectiveStudy.Spec(operation, group, s, choice))).durationsNs()[0];
            double algbw = s / (ns / 1e9) / 1e9;
            Row row = new Row(s, ns / 1e3, algbw, algbw * operation.busBandwidthFactor(group.size()),
                    choice.algorithm().name(), choice.protocol().name());
            rows.add(row);
            out.printf(Locale.ROOT, "  %12d %12.2f %10.2f %10.2f  %s/%s%n", s, row.timeUs(), row.algbwGBps(),
                    row.busbwGBps(), row.algorithm(), row.protocol());
            out.flush();
            if (s == Long.MAX_VALUE) {
                break;
            }
        }
        if (json != null) {
            OutputFiles.writeJson(json, rows);
            out.printf(Locale.ROOT, "json %s%n", json);
        }
        out.flush();
        return 0;
    }

    private static Link link(Topology t, String option, String name) {
        return t.link(name).orElseThrow(() -> new InputException(option + ": no link named '" + name + "' in "
                + t.name() + "; 'clustersim topology " + t.name() + " --links' lists them"));
    }
}
