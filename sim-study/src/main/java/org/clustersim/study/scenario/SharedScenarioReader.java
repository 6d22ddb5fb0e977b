package org.clustersim.study.scenario;

import static org.clustersim.study.scenario.ScenarioFields.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.clustersim.core.Simulation;
import org.clustersim.core.input.Diagnostics;
import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFileException;
import org.clustersim.core.input.Section;
import org.clustersim.core.input.SourceLocation;
import org.clustersim.core.input.SourceNode;
import org.clustersim.core.input.SourceTreeReader;

/**
 * Reads a shared-cluster file ({@link SharedScenario}): one {@code cluster} (with {@code nodes}),
 * {@code network}, {@code faults} and {@code output} as in a scenario, and a {@code jobs} list.
 * Each job is read as a scenario of its own ({@link ScenarioReader}) from its sections (or from
 * the scenario file it names, whose {@code cluster}, {@code network}, {@code faults} and
 * {@code output} are ignored), on a cluster of the shared one's servers and fabric just large
 * enough for its layout; then placed ({@link Placement}): explicit servers first, then the
 * policies in file order on what is left. Every error of the file (and of the jobs' files) is
 * collected and thrown together, each at its file, line and field ({@code jobs[1].placement}).
 */
public final class SharedScenarioReader {
    /** The keys of a job beside the scenario sections it may hold. */
    private static final List<String> SCENARIO_SECTIONS = List.of("model", "parallelism", "schedule", "training",
            "simulation");
    /** Sections that belong to the shared file, not to a job. */
    private static final List<String> SHARED_SECTIONS = List.of("cluster", "network", "faults", "output");

    private final SourceTreeReader treeReader = new SourceTreeReader();

    /** Whether a parsed file is a shared-cluster file: a mapping with a {@code jobs} key. */
    public static boolean isShared(SourceNode tree) {
        return tree instanceof SourceNode.MapNode m && m.entries().containsKey("jobs");
    }

    /**
     * Reads a file.
     *
     * @throws InputFileException listing every problem found
     */
    public SharedScenario read(Path file) {
        return read(file, treeReader.read(file));
    }

    /**
     * Reads a shared-cluster file already parsed.
     *
     * @throws InputFileException listing every problem found
     */
    public SharedScenario read(Path file, SourceNode tree) {
        Diagnostics d = new Diagnostics(file);
        List<InputError> elsewhere = new ArrayList<>();
        Section root = Section.root(d, tree);
        String name = NAME.text(root).orElseGet(() -> stem(file));
        Section clusterSec = CLUSTER.section(root);
        Section netSec = NETWORK.section(root);
        Simulation.Fidelity fidelity = FIDELITY.choice(netSec);
        Simulation.Routing routing = ROUTING.choice(netSec);
        List<Fault> faults = new FaultListReader(FAULTS.list(root), d).read();
        Section outSec = OUTPUT.section(root);
        Scenario.Output output = new Scenario.Output(TRACE.text(outSec), SUMMARY.text(outSec),
                LINK_COUNTERS.bool(outSec));
        Section simSec = root.section("simulation");
        boolean autoSteps = simSec.choice("steps", Boolean.FALSE, Map.of("auto", Boolean.TRUE));
        String preset = CLUSTER_PRESET.choice(clusterSec);
        Optional<ClusterSectionReader.ClusterChoice> cluster = Optional.empty();
        boolean tpu = TpuSectionReader.presets().contains(preset);
        if (tpu) {
            // slices joined by DCN, chips numbered as the hardware lays them out (no mesh of its own)
            cluster = TpuSectionReader.cluster(clusterSec, preset, new Section(d, "parallelism", null,
                    SourceLocation.NONE), new ClusterSectionReader(clusterSec, file, treeReader)::deviceProfile)
                    .map(t -> new ClusterSectionReader.ClusterChoice(t.torus(), t.device()));
        } else if (!clusterSec.has(NODES.name())) {
            clusterSec.error(NODES.name(), "missing required value: a shared cluster names its size, expected the "
                    + "number of servers");
        } else {
            TpuSectionReader.gpuCluster(clusterSec, new Section(d, "parallelism", null, SourceLocation.NONE));
            cluster = new ClusterSectionReader(clusterSec, file, treeReader).read(preset, 0);
        }
        SourceNode.MapNode clusterNode = root.node("cluster").filter(n -> n instanceof SourceNode.MapNode)
                .map(n -> (SourceNode.MapNode) n).orElse(null);
        SourceNode netNode = root.node("network").orElse(null);
        List<SourceNode> items = root.list("jobs");
        if (items.isEmpty()) {
            root.error("jobs", "found no jobs, expected a list of at least one job (name, placement, and a scenario's "
                    + "model, parallelism, schedule, training, simulation sections or scenario: FILE)");
        }
        for (Section s : List.of(clusterSec, netSec, outSec, simSec, root)) {
            s.finish();
        }
        List<Pending> pending = new ArrayList<>();
        Map<String, Integer> names = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            SourceNode item = items.get(i);
            String path = "jobs[" + i + "]";
            if (!(item instanceof SourceNode.MapNode job)) {
                d.error(item.location(), path, "found " + item.describe() + ", expected a mapping: a job");
                continue;
            }
            Section js = new Section(d, path, job, job.location());
            String jobName = js.text("name").orElse("job" + i);
            if (jobName.contains("/")) {
                js.error("name", "found '" + jobName + "', expected a name without '/' (the trace names each job's "
                        + "devices job/device)");
            }
            Integer twin = names.putIfAbsent(jobName, i);
            if (twin != null) {
                js.error("name", "found '" + jobName + "', the name of jobs[" + twin + "] too; expected a name of "
                        + "its own");
            }
            Placement placement = placement(js);
            int slices = js.integer(SLICES_KEY, 1, 1, 1 << 12);
            if (!tpu && js.has(SLICES_KEY)) {
                js.error(SLICES_KEY, "a job takes slices on a shared cluster of TPU slices; on GPU servers its layout "
                        + "says how many servers it takes: leave slices out");
            }
            for (String shared : SHARED_SECTIONS) {
                if (js.has(shared)) {
                    js.error(shared, "a job runs on the shared cluster: give " + shared + " once, at the top of the file");
                }
            }
            Optional<String> ref = js.text("scenario");
            for (String sec : SCENARIO_SECTIONS) {
                if (js.has(sec) && ref.isPresent()) {
                    js.error(sec, "found both scenario: " + ref.get() + " and a " + sec + " section; expected one of "
                            + "them");
                }
            }
            js.finish();
            if (clusterNode == null || cluster.isEmpty()) {
                continue;
            }
            Path jobFile = file;
            Map<String, SourceNode.Entry> entries = new LinkedHashMap<>();
            if (ref.isPresent()) {
                Path dir = file.toAbsolutePath().getParent();
                jobFile = dir == null ? Path.of(ref.get()) : dir.resolve(ref.get());
                if (!Files.isRegularFile(jobFile)) {
                    js.error("scenario", "found '" + ref.get() + "', expected a scenario file relative to this one");
                    continue;
                }
                SourceNode other;
                try {
                    other = treeReader.read(jobFile);
                } catch (InputFileException e) {
                    elsewhere.addAll(e.errors());
                    continue;
                }
                if (other instanceof SourceNode.MapNode m) {
                    for (SourceNode.Entry e : m.entries().values()) {
                        if (!SHARED_SECTIONS.contains(e.key()) && !e.key().equals("name")) {
                            entries.put(e.key(), e);
                        }
                    }
                }
            } else {
                for (SourceNode.Entry e : job.entries().values()) {
                    if (SCENARIO_SECTIONS.contains(e.key())) {
                        entries.put(e.key(), e);
                    }
                }
            }
            entries.put("name", new SourceNode.Entry("name", job.location(),
                    new SourceNode.ScalarNode(SourceNode.ScalarKind.STRING, jobName, job.location())));
            Map<String, SourceNode.Entry> own = new LinkedHashMap<>(clusterNode.entries());
            own.remove(NODES.name());
            if (tpu) {
                // the job's own cluster: as many of the shared cluster's slices as it takes
                SourceLocation at = js.node(SLICES_KEY).map(SourceNode::location).orElse(job.location());
                own.put(SLICES.name(), new SourceNode.Entry(SLICES.name(), at, new SourceNode.ScalarNode(
                        SourceNode.ScalarKind.INTEGER, Integer.toString(slices), at)));
            }
            // the job's own cluster: the shared servers and fabric, as many servers as its layout needs
            entries.put("cluster", new SourceNode.Entry("cluster", clusterNode.location(),
                    new SourceNode.MapNode(own, clusterNode.location())));
            if (netNode != null) {
                entries.put("network", new SourceNode.Entry("network", netNode.location(), netNode));
            }
            try {
                Scenario scenario = new ScenarioReader().read(jobFile,
                        new SourceNode.MapNode(entries, job.location()));
                pending.add(new Pending(jobName, scenario, placement, js));
            } catch (InputFileException e) {
                for (InputError err : e.errors()) {
                    if (err.file().equals(file) && err.path().startsWith("cluster.")) {
                        // the job's own cluster is the shared one cut to its layout: a size that does
                        // not fit is the layout's
                        d.error(job.location(), path + ".parallelism", "on servers of the shared cluster: "
                                + err.message());
                    } else if (err.file().equals(file)) {
                        d.error(err.location(), err.path().isEmpty() ? path : path + "." + err.path(), err.message());
                    } else {
                        elsewhere.add(new InputError(err.file(), err.location(), err.path(), err.message()
                                + " (in " + path + " of " + file + ")"));
                    }
                }
            }
        }
        List<SharedScenario.Job> jobs = List.of();
        if (!d.hasErrors() && elsewhere.isEmpty() && cluster.isPresent()) {
            jobs = ServerAllocation.place(cluster.get().spec(), pending.stream().map(p -> new ServerAllocation.Request(
                    p.name, p.scenario, p.placement, p.section)).toList());
        }
        if (d.hasErrors() || !elsewhere.isEmpty()) {
            List<InputError> all = new ArrayList<>();
            try {
                d.throwIfAny();
            } catch (InputFileException e) {
                all.addAll(e.errors());
            }
            List<InputError> others = new ArrayList<>(elsewhere);
            others.sort(Comparator.comparing((InputError e) -> e.file().toString())
                    .thenComparingInt(e -> e.location().line()));
            all.addAll(others);
            throw new InputFileException(all);
        }
        return new SharedScenario(name, file, cluster.orElseThrow().spec(), cluster.get().device(), jobs, faults,
                fidelity, routing, output, autoSteps);
    }

    /** A job's key on a TPU shared cluster: how many whole slices it takes. */
    static final String SLICES_KEY = "slices";

    /** A job read, not yet placed. */
    private record Pending(String name, Scenario scenario, Placement placement, Section section) {
    }

    /** A job's {@code placement}: a policy's name, or a mapping of {@code policy} (and {@code seed}) or {@code servers}. */
    private static Placement placement(Section js) {
        Optional<SourceNode> node = js.node("placement");
        if (node.isEmpty()) {
            js.error("placement", "missing required value: expected a policy (packed, spread, random, first-fit) or "
                    + "{servers: 0-31}");
            return new Placement.Policy(Placement.Kind.PACKED, 0);
        }
        if (node.get() instanceof SourceNode.ScalarNode) {
            return new Placement.Policy(js.choice("placement", Placement.Kind.PACKED, POLICIES), 0);
        }
        Section ps = js.section("placement");
        Placement out;
        if (ps.has("servers") == ps.has("policy")) {
            ps.error(ps.has("servers") ? "policy" : "servers", "expected either policy or servers");
            out = new Placement.Policy(Placement.Kind.PACKED, 0);
        } else if (ps.has("servers")) {
            out = new Placement.Servers(servers(ps));
        } else {
            Placement.Kind kind = ps.choice("policy", Placement.Kind.PACKED, POLICIES);
            long seed = ps.integer("seed", 0, 0, Integer.MAX_VALUE);
            if (ps.has("seed") && kind != Placement.Kind.RANDOM) {
                ps.error("seed", "only the random policy takes a seed");
            }
            out = new Placement.Policy(kind, seed);
        }
        ps.finish();
        return out;
    }

    /** The policies by name. */
    static final Map<String, Placement.Kind> POLICIES = Map.of("packed", Placement.Kind.PACKED, "spread",
            Placement.Kind.SPREAD, "random", Placement.Kind.RANDOM, "first-fit", Placement.Kind.FIRST_FIT);

    /** {@code servers}: {@code 0-31,64-95}, a number, or a list of those. */
    private static int[] servers(Section ps) {
        SourceNode v = ps.node("servers").orElseThrow();
        List<SourceNode> parts = v instanceof SourceNode.ListNode l ? l.items() : List.of(v);
        List<Integer> out = new ArrayList<>();
        for (SourceNode part : parts) {
            if (!(part instanceof SourceNode.ScalarNode s) || (s.kind() != SourceNode.ScalarKind.STRING
                    && s.kind() != SourceNode.ScalarKind.INTEGER)) {
                ps.error("servers", "found " + part.describe() + ", expected server numbers and ranges such as 0-31,64");
                return new int[0];
            }
            for (String range : s.text().split(",")) {
                String[] ends = range.trim().split("-", -1);
                try {
                    int a = Integer.parseInt(ends[0].trim());
                    int b = ends.length == 2 ? Integer.parseInt(ends[1].trim()) : a;
                    if (ends.length > 2 || a < 0 || b < a || b - a > 1_000_000) {
                        throw new NumberFormatException();
                    }
                    for (int n = a; n <= b; n++) {
                        out.add(n);
                    }
                } catch (NumberFormatException e) {
                    ps.error("servers", "found '" + range.trim() + "', expected a server number or a range a-b with "
                            + "a <= b");
                    return new int[0];
                }
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    private static String stem(Path file) {
        String f = file.getFileName().toString();
        int dot = f.lastIndexOf('.');
        return dot > 0 ? f.substring(0, dot) : f;
    }
}
