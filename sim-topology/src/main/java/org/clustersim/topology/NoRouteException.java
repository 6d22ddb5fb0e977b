package org.clustersim.topology;

import java.util.List;

/** No usable path joins two devices, typically because failed links cut them apart. */
public final class NoRouteException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Vertex source;
    private final transient Vertex destination;

    public NoRouteException(Vertex source, Vertex destination, List<Link> downLinks) {
        super("no route from " + source + " to " + destination + describe(downLinks));
        this.source = source;
        this.destination = destination;
    }

    private static String describe(List<Link> down) {
        if (down.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("; failed links: ");
        for (int i = 0; i < down.size() && i < 10; i++) {
            sb.append(i == 0 ? "" : ", ").append(down.get(i).name());
        }
        if (down.size() > 10) {
            sb.append(" and ").append(down.size() - 10).append(" more");
        }
        return sb.toString();
    }

    public Vertex source() {
        return source;
    }

    public Vertex destination() {
        return destination;
    }
}
