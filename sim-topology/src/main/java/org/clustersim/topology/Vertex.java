package org.clustersim.topology;

/**
 * One vertex of the cluster graph.
 *
 * @param id    dense index of the vertex in its topology, 0-based
 * @param name  stable, human-readable name such as {@code node1.gpu3} or {@code switch0}
 * @param kind  what the vertex is
 * @param node  index of the server the vertex sits in, or -1 for vertices outside any server
 */
public record Vertex(int id, String name, VertexKind kind, int node) {
    /** Vertices are identified by their id within a topology; equality and hashing use it alone (hot path). */
    @Override
    public boolean equals(Object o) {
        return o instanceof Vertex v && v.id == id && v.name.equals(name);
    }

    @Override
    public int hashCode() {
        return id;
    }

    @Override
    public String toString() {
        return name;
    }
}
