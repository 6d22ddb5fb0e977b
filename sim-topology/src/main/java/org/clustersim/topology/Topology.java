package org.clustersim.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jgrapht.Graph;
import org.jgrapht.graph.AbstractBaseGraph;
import org.jgrapht.graph.DefaultGraphSpecificsStrategy;
import org.jgrapht.graph.DefaultGraphType;

/**
 * A cluster as a directed JGraphT graph of accelerators, switches and NICs joined by links.
 *
 * <p>Accelerators are numbered 0..n-1 in the order they were added; that number is the
 * device index the execution engine uses. A {@link Router} chosen by the builder (switched
 * fabrics or tori) decides the links each flow crosses given the links' current health.
 */
public final class Topology {
    private final String name;
    private final AcceleratorSpec accelerator;
    /** Built on first use: the routers work on arrays, and most runs never ask for the graph. */
    private Graph<Vertex, Link> graph;
    private final List<Vertex> vertices;
    private final List<Link> links;
    private final List<Vertex> accelerators;
    private final Router router;
    private final LinkStates healthy;
    private final Map<String, Link> linkByName = new HashMap<>();
    private final CommTuning tuning;
    private final ClusterSpec spec;

    private Topology(String name, AcceleratorSpec accelerator, List<Vertex> vertices, List<Link> links,
                     List<Vertex> accelerators, RouterFactory routerFactory, CommTuning tuning, ClusterSpec spec) {
        this.name = name;
        this.tuning = tuning;
        this.spec = spec;
        this.accelerator = accelerator;
        this.vertices = List.copyOf(vertices);
        this.links = List.copyOf(links);
        this.accelerators = List.copyOf(accelerators);
        this.router = routerFactory.create(this.vertices, this.links, this.accelerators, this::graph);
        this.healthy = new LinkStates(links.size());
    }

    /** The same fabric (vertices, links, router) with other collective constants. */
    private Topology(Topology fabric, CommTuning tuning) {
        this.name = fabric.name;
        this.tuning = tuning;
        this.spec = fabric.spec;
        this.accelerator = fabric.accelerator;
        this.vertices = fabric.vertices;
        this.links = fabric.links;
        this.accelerators = fabric.accelerators;
        this.router = fabric.router;
        this.healthy = new LinkStates(links.size());
    }

    /**
     * This fabric with the collective constants {@code commTuning} (a device profile's fitted
     * ones, say); this topology itself when they are its own. The two share their router, so
     * use one of them only.
     */
    public Topology withTuning(CommTuning commTuning) {
        return commTuning.equals(tuning) ? this : new Topology(this, commTuning);
    }

    /**
     * Builds the router of a topology once its vertices and links are complete.
     */
    @FunctionalInterface
    public interface RouterFactory {
        /**
         * @param vertices by id
         * @param links    by id
         * @param devices  the accelerators, by device number
         * @param graph    the topology's graph, built when first asked for
         */
        Router create(List<Vertex> vertices, List<Link> links, List<Vertex> devices,
                      java.util.function.Supplier<Graph<Vertex, Link>> graph);
    }

    /** A builder that hands out dense vertex and link ids. */
    public static Builder builder(String name, AcceleratorSpec accelerator) {
        return new Builder(name, accelerator);
    }

    public String name() {
        return name;
    }

    public AcceleratorSpec accelerator() {
        return accelerator;
    }

    /**
     * The underlying graph, read-only by convention: topologies are immutable once built. It is
     * made on first use (a directed multigraph of every vertex and link, added in id order): a
     * 16,384-GPU fabric's 330 K links cost a third of building it, and routing works on arrays.
     */
    public synchronized Graph<Vertex, Link> graph() {
        if (graph == null) {
            Graph<Vertex, Link> g = new AbstractBaseGraph<Vertex, Link>(null, null,
                    DefaultGraphType.directedMultigraph(), new DefaultGraphSpecificsStrategy<>()) {
                private static final long serialVersionUID = 1L;
            };
            for (Vertex v : vertices) {
                g.addVertex(v);
            }
            for (Link l : links) {
                g.addEdge(l.src(), l.dst(), l);
            }
            graph = g;
        }
        return graph;
    }

    public List<Vertex> vertices() {
        return vertices;
    }

    public List<Link> links() {
        return links;
    }

    /** Number of accelerators, which is the number of devices the engine can run work on. */
    public int deviceCount() {
        return accelerators.size();
    }

    /** The accelerator vertex of device {@code device}. */
    public Vertex device(int device) {
        return accelerators.get(device);
    }

    /** The description this topology was built from, if a preset builder made it. */
    public java.util.Optional<ClusterSpec> spec() {
        return java.util.Optional.ofNullable(spec);
    }

    /** Collective-library efficiencies and step latencies of this machine. */
    public CommTuning tuning() {
        return tuning;
    }

    /** The router that picks each flow's links. */
    public Router router() {
        return router;
    }

    /** The route from one device to another with every link healthy (channel 0). */
    public Route route(int srcDevice, int dstDevice) {
        return router.route(srcDevice, dstDevice, 0, healthy);
    }

    /** Whether a flow on {@code channel}, every link healthy, leaves the scale-up domain through a NIC. */
    public boolean leavesScaleUp(int srcDevice, int dstDevice, int channel) {
        return router.leavesScaleUp(srcDevice, dstDevice, channel, healthy);
    }

    /** The route of a flow on {@code channel} with every link healthy. */
    public Route route(int srcDevice, int dstDevice, int channel) {
        return router.route(srcDevice, dstDevice, channel, healthy);
    }

    /** A link by its stable name ({@code src->dst}, or {@code src->dst#k} for the k-th parallel link). */
    public java.util.Optional<Link> link(String linkName) {
        if (linkByName.isEmpty()) {
            for (Link l : links) {
                linkByName.putIfAbsent(l.name(), l);
            }
        }
        return java.util.Optional.ofNullable(linkByName.get(linkName));
    }

    /** Incrementally assembles a topology. */
    public static final class Builder {
        private final String name;
        private final AcceleratorSpec accelerator;
        private final List<Vertex> vertices = new ArrayList<>();
        private final List<Link> links = new ArrayList<>();
        /**
         * Per vertex, the links added so far out of it, to number parallel links: scanning a
         * switch's few hundred links costs less than a map keyed by vertex pair, whose boxed keys
         * made a tenth of building a 16K-GPU fabric.
         */
        private final List<List<Link>> outLinks = new ArrayList<>();
        /**
         * Per vertex with more than {@link #SCANNED} links out, the links out so far by far end
         * (vertex id): a single switch joining every NIC of a large cluster has one link per NIC,
         * and scanning them for each new one made building quadratic (160K GPUs: minutes).
         */
        private final Map<Integer, Map<Integer, Integer>> lanesByEnd = new HashMap<>();
        /** Links out of a vertex scanned for parallel ones before they are counted by far end. */
        private static final int SCANNED = 64;
        private final List<Vertex> accelerators = new ArrayList<>();
        private final Map<Integer, Integer> scaleUp = new HashMap<>();
        private final Map<Integer, Integer> nics = new HashMap<>();
        private RouterFactory routerFactory;
        private long seed = 0x5eedL;
        private CommTuning tuning = CommTuning.H100;
        private ClusterSpec spec;

        private Builder(String name, AcceleratorSpec accelerator) {
            this.name = name;
            this.accelerator = accelerator;
        }

        public Vertex addVertex(String vertexName, VertexKind kind, int node) {
            Vertex v = new Vertex(vertices.size(), vertexName, kind, node);
            vertices.add(v);
            outLinks.add(new ArrayList<>(4));
            if (kind == VertexKind.ACCELERATOR) {
                accelerators.add(v);
            }
            return v;
        }

        /** Adds one directed link. */
        public Link addLink(Vertex src, Vertex dst, LinkKind kind, double bytesPerS, long latencyNs) {
            List<Link> out = outLinks.get(src.id());
            int lane = 0;
            if (out.size() < SCANNED) {
                for (int i = 0, n = out.size(); i < n; i++) {
                    if (out.get(i).dst() == dst) {
                        lane++;
                    }
                }
            } else {
                Map<Integer, Integer> lanes = lanesByEnd.computeIfAbsent(src.id(), k -> {
                    Map<Integer, Integer> byEnd = new HashMap<>();
                    for (Link l : out) {
                        byEnd.merge(l.dst().id(), 1, Integer::sum);
                    }
                    return byEnd;
                });
                lane = lanes.getOrDefault(dst.id(), 0);
                lanes.put(dst.id(), lane + 1);
            }
            Link link = new Link(links.size(), src, dst, kind, bytesPerS, latencyNs, lane);
            links.add(link);
            out.add(link);
            return link;
        }

        /** Adds a full-duplex connection: two links with the same figures, one per direction. */
        public void addDuplex(Vertex a, Vertex b, LinkKind kind, double bytesPerS, long latencyNs) {
            addLink(a, b, kind, bytesPerS, latencyNs);
            addLink(b, a, kind, bytesPerS, latencyNs);
        }

        /**
         * Adds {@code nodes} NVSwitch servers of {@code gpusPerNode} GPUs: the GPUs (named
         * {@code nodeN.gpuG}, numbered node by node), one NVSwitch vertex per server and a
         * duplex NVLink from every GPU to it. The NVSwitch chips of a domain (4 on HGX H100, 6
         * on DGX A100, 18 in an NVL72) are one crossbar vertex: NVLink traffic is sprayed over
         * all of them, so per-GPU bandwidth is what limits it. Also picks the machine's
         * collective tuning from the GPU model.
         *
         * @return the GPUs as [node][gpu]
         */
        public Vertex[][] nvSwitchServers(int nodes, int gpusPerNode, double nvlinkBytesPerS, long nvlinkLatencyNs) {
            // by name: a device profile builds its own (equal) record of the chip
            boolean a100 = AcceleratorSpec.A100_SXM_80GB.name().equals(accelerator.name());
            tuning(a100 ? CommTuning.A100 : CommTuning.H100);
            Vertex[][] gpus = new Vertex[nodes][gpusPerNode];
            for (int n = 0; n < nodes; n++) {
                for (int g = 0; g < gpusPerNode; g++) {
                    gpus[n][g] = addVertex("node" + n + ".gpu" + g, VertexKind.ACCELERATOR, n);
                }
            }
            for (int n = 0; n < nodes; n++) {
                Vertex nvswitch = addVertex("node" + n + ".nvswitch", VertexKind.NVSWITCH, n);
                for (int g = 0; g < gpusPerNode; g++) {
                    addDuplex(gpus[n][g], nvswitch, LinkKind.NVLINK, nvlinkBytesPerS, nvlinkLatencyNs);
                    scaleUp(gpus[n][g], nvswitch);
                }
            }
            return gpus;
        }

        /**
         * The leaves of a DGX SuperPOD rail-optimised fabric and every server's NICs on them: each
         * scalable unit of {@code serversPerUnit} servers has {@code leavesPerUnit} leaves
         * ({@code suN.leafL}), leaf L taking rails L x railsPerLeaf .. (L + 1) x railsPerLeaf - 1 of
         * every server of its unit (one rail a leaf on 8-GPU servers; 4 or 9 of an NVL72 rack's 72),
         * through one NIC a GPU ({@code nodeN.nicG}).
         *
         * @param gpus the servers' GPUs as [node][gpu], from {@link #nvSwitchServers}
         * @return the leaves, ordered by rail group, then unit: leaf index = group x units + unit
         */
        public Vertex[] railLeaves(Vertex[][] gpus, int units, int serversPerUnit, int leavesPerUnit,
                                   int railsPerLeaf, double nicBytesPerS, long gpuNicLatencyNs, long cableLatencyNs) {
            Vertex[] leaf = new Vertex[leavesPerUnit * units];
            for (int g = 0; g < leavesPerUnit; g++) {
                for (int su = 0; su < units; su++) {
                    leaf[g * units + su] = addVertex("su" + su + ".leaf" + g, VertexKind.SWITCH, -1);
                }
            }
            for (int n = 0; n < gpus.length; n++) {
                int su = n / serversPerUnit;
                for (int g = 0; g < gpus[n].length; g++) {
                    Vertex nic = addVertex("node" + n + ".nic" + g, VertexKind.NIC, n);
                    addDuplex(gpus[n][g], nic, LinkKind.GPU_NIC, nicBytesPerS, gpuNicLatencyNs);
                    addDuplex(nic, leaf[(g / railsPerLeaf) * units + su], LinkKind.NIC_SWITCH, nicBytesPerS,
                            cableLatencyNs);
                    nic(gpus[n][g], nic);
                }
            }
            return leaf;
        }

        /** Declares the scale-up switch (NVSwitch) a GPU reaches its domain through. */
        public void scaleUp(Vertex gpu, Vertex nvswitch) {
            scaleUp.put(gpu.id(), nvswitch.id());
        }

        /** Declares the NIC a GPU reaches the scale-out fabric through. */
        public void nic(Vertex gpu, Vertex nic) {
            nics.put(gpu.id(), nic.id());
        }

        /** Collective constants of the machine (default: H100's). */
        public void tuning(CommTuning commTuning) {
            this.tuning = commTuning;
        }

        /** Records the description the topology is built from. */
        public void spec(ClusterSpec clusterSpec) {
            this.spec = clusterSpec;
        }

        /** Seed of the ECMP hash. */
        public void seed(long ecmpSeed) {
            this.seed = ecmpSeed;
        }

        /** Uses another router than the switched-fabric one (tori route by dimension order). */
        public void router(RouterFactory factory) {
            this.routerFactory = factory;
        }

        public Topology build() {
            RouterFactory factory = routerFactory;
            if (factory == null) {
                int[] up = new int[accelerators.size()];
                int[] nic = new int[accelerators.size()];
                for (int i = 0; i < accelerators.size(); i++) {
                    up[i] = scaleUp.getOrDefault(accelerators.get(i).id(), -1);
                    nic[i] = nics.getOrDefault(accelerators.get(i).id(), -1);
                }
                long s = seed;
                factory = (vs, ls, devs, graph) -> new SwitchedRouter(vs, ls, devs, up, nic, s);
            }
            return new Topology(name, accelerator, vertices, links, accelerators, factory, tuning, spec);
        }
    }
}
