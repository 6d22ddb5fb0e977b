package org.clustersim.study.whatif;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

import org.clustersim.topology.Link;
import org.clustersim.topology.LinkKind;
import org.clustersim.topology.Topology;

/**
 * A physical cable: the two directed links between the same pair of vertices, which fail
 * together. Named {@code a<->b} with the lower-numbered vertex first ({@code a<->b#k} for the
 * k-th of parallel cables), and classed as a
 * cluster operator groups cables: nvlink, gpu-nic, nic-switch, leaf-spine, spine-core,
 * switch-switch (other switch pairs), ici, dcn. These class names are the one vocabulary of
 * link classes: the run summary's groups, the report, {@code topology --links} and
 * {@code whatif --sweep links=CLASS} all use them ({@link #classOf}, in {@link #CLASSES} order).
 *
 * @param name  {@code a<->b}
 * @param kind  the links' technology
 * @param clazz the operator's class
 * @param bytesPerS capacity of one direction
 */
public record Cable(String name, LinkKind kind, String clazz, double bytesPerS) {

    /** Every cable of the topology, in link order. */
    public static List<Cable> all(Topology topology) {
        List<Cable> out = new ArrayList<>();
        for (Link l : topology.links()) {
            String lane = l.lane() > 0 ? "#" + l.lane() : "";
            if (l.src().id() < l.dst().id()
                    && topology.link(l.dst().name() + "->" + l.src().name() + lane).isPresent()) {
                out.add(new Cable(l.src().name() + "<->" + l.dst().name() + lane, l.kind(), classOf(l),
                        l.bandwidthBytesPerS()));
            }
        }
        return out;
    }

    /** Every link class, innermost first: the order lists of classes are printed in. */
    public static final List<String> CLASSES = List.of("nvlink", "gpu-nic", "nic-switch", "leaf-spine", "spine-core",
            "switch-switch", "ici", "dcn");

    /** The classes of {@code links}, each once, innermost first ({@link #CLASSES} order). */
    public static List<String> classesOf(Iterable<Link> links) {
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Link l : links) {
            seen.add(classOf(l));
        }
        return CLASSES.stream().filter(seen::contains).toList();
    }

    /**
     * The operator's class of a link: its {@link LinkKind} (a NIC's link to the first switch is
     * nic-switch, whatever that switch is called), switch pairs told apart by the switches' names.
     */
    public static String classOf(Link l) {
        return switch (l.kind()) {
            case NVLINK -> "nvlink";
            case GPU_NIC -> "gpu-nic";
            case NIC_SWITCH -> "nic-switch";
            case ICI -> "ici";
            case DCN -> "dcn";
            case SWITCH_SWITCH -> {
                String a = l.src().name();
                String b = l.dst().name();
                boolean core = a.contains("core") || b.contains("core");
                boolean leaf = a.contains("leaf") || b.contains("leaf");
                yield core ? "spine-core" : leaf ? "leaf-spine" : "switch-switch";
            }
        };
    }

    /**
     * The cables matching {@code filter} (a class such as {@code leaf-spine}, or text the name
     * contains; null or empty for all), optionally a seeded sample of {@code sample} of them
     * (0: all), in name order.
     */
    public static List<Cable> select(Topology topology, String filter, int sample, long seed) {
        List<Cable> matching = new ArrayList<>();
        String f = filter == null ? "" : filter.toLowerCase(Locale.ROOT);
        for (Cable c : all(topology)) {
            if (f.isEmpty() || c.clazz.equals(f) || c.name.toLowerCase(Locale.ROOT).contains(f)) {
                matching.add(c);
            }
        }
        matching.sort(java.util.Comparator.comparing(Cable::name));
        if (sample > 0 && sample < matching.size()) {
            SplittableRandom random = new SplittableRandom(seed);
            for (int i = matching.size() - 1; i > 0; i--) {
                java.util.Collections.swap(matching, i, random.nextInt(i + 1));
            }
            matching = new ArrayList<>(matching.subList(0, sample));
            matching.sort(java.util.Comparator.comparing(Cable::name));
        }
        return matching;
    }
}
