package org.clustersim.topology;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jgrapht.Graph;
import org.jgrapht.GraphPath;
import org.jgrapht.alg.shortestpath.BFSShortestPath;
import org.jgrapht.graph.DirectedMultigraph;

/**
 * A cluster as a directed JGraphT graph of accelerators, switches and NICs joined by links.
 *
 * <p>Accelerators are numbered 0..n-1 in the order they were added; that number is the
 * device index the execution engine uses. Routes are shortest paths by hop count, computed
 * on first use and cached per (source, destination) pair.
 */
public final class Topology {
    private final String name;
    private final AcceleratorSpec accelerator;
    private final Graph<Vertex, Link> graph;
    private final List<Vertex> vertices;
    private final List<Link> links;
    private final List<Vertex> accelerators;
    private final Map<Long, Route> routeCache = new HashMap<>();

    private Topology(String name, AcceleratorSpec accelerator, Graph<Vertex, Link> graph, List<Vertex> vertices,
                     List<Link> links, List<Vertex> accelerators) {
        this.name = name;
        this.accelerator = accelerator;
        this.graph = graph;
        this.vertices = List.copyOf(vertices);
        this.links = List.copyOf(links);
        this.accelerators = List.copyOf(accelerators);
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

    /** The underlying graph, read-only by convention: topologies are immutable once built. */
    public Graph<Vertex, Link> graph() {
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

    /**
     * The route from one device to another: a fewest-hops path, cached.
     *
     * @throws IllegalStateException if no path exists
     */
    public Route route(int srcDevice, int dstDevice) {
        long key = ((long) srcDevice << 32) | (dstDevice & 0xffffffffL);
        Route cached = routeCache.get(key);
        if (cached != null) {
            return cached;
        }
        Route route;
        if (srcDevice == dstDevice) {
            route = new Route(Collections.emptyList());
        } else {
            Vertex src = device(srcDevice);
            Vertex dst = device(dstDevice);
            GraphPath<Vertex, Link> path = BFSShortestPath.findPathBetween(graph, src, dst);
            if (path == null) {
                throw new IllegalStateException("no route from " + src + " to " + dst + " in topology " + name);
            }
            route = new Route(path.getEdgeList());
        }
        routeCache.put(key, route);
        return route;
    }

    /** Incrementally assembles a topology. */
    public static final class Builder {
        private final String name;
        private final AcceleratorSpec accelerator;
        private final Graph<Vertex, Link> graph = new DirectedMultigraph<>(null, null, false);
        private final List<Vertex> vertices = new ArrayList<>();
        private final List<Link> links = new ArrayList<>();
        private final List<Vertex> accelerators = new ArrayList<>();

        private Builder(String name, AcceleratorSpec accelerator) {
            this.name = name;
            this.accelerator = accelerator;
        }

        public Vertex addVertex(String vertexName, VertexKind kind, int node) {
            Vertex v = new Vertex(vertices.size(), vertexName, kind, node);
            vertices.add(v);
            graph.addVertex(v);
            if (kind == VertexKind.ACCELERATOR) {
                accelerators.add(v);
            }
            return v;
        }

        /** Adds one directed link. */
        public Link addLink(Vertex src, Vertex dst, LinkKind kind, double bytesPerS, long latencyNs) {
            Link link = new Link(links.size(), src, dst, kind, bytesPerS, latencyNs);
            links.add(link);
            graph.addEdge(src, dst, link);
            return link;
        }

        /** Adds a full-duplex connection: two links with the same figures, one per direction. */
        public void addDuplex(Vertex a, Vertex b, LinkKind kind, double bytesPerS, long latencyNs) {
            addLink(a, b, kind, bytesPerS, latencyNs);
            addLink(b, a, kind, bytesPerS, latencyNs);
        }

        public Topology build() {
            return new Topology(name, accelerator, graph, vertices, links, accelerators);
        }
    }
}
