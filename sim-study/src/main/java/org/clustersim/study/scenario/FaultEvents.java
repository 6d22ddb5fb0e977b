package org.clustersim.study.scenario;

import org.clustersim.core.input.InputError;
import org.clustersim.core.input.InputFileException;
import org.clustersim.core.input.Suggestions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.clustersim.core.Simulation;
import org.clustersim.topology.Link;
import org.clustersim.topology.Topology;
import org.clustersim.topology.Vertex;
import org.clustersim.topology.VertexKind;

/**
 * Faults turned into simulation events on a topology: the links each fault touches (a cable's
 * two directions, every link of a switch or NIC) change state when it starts and recover when
 * it ends; a slowed GPU changes speed likewise.
 *
 * @param links   link state changes, in fault order
 * @param devices device speed changes, in fault order
 */
public record FaultEvents(List<Simulation.LinkEvent> links, List<Simulation.DeviceEvent> devices) {

    public static final FaultEvents NONE = new FaultEvents(List.of(), List.of());

    /**
     * Resolves every fault.
     *
     * @param source the scenario file the faults come from, for error messages
     * @throws InputFileException naming each fault whose target does not exist, with the nearest names
     */
    public static FaultEvents resolve(List<Fault> faults, Topology topology, Path source) {
        List<Simulation.LinkEvent> links = new ArrayList<>();
        List<Simulation.DeviceEvent> devices = new ArrayList<>();
        List<InputError> errors = new ArrayList<>();
        for (Fault f : faults) {
            if (f.target() == Fault.Target.GPU) {
                int device = deviceIndex(topology, f.name());
                if (device < 0) {
                    errors.add(unknown(f, topology, source, names(topology, Fault.Target.GPU)));
                    continue;
                }
                devices.add(new Simulation.DeviceEvent(device, f.atNs(), f.speed()));
                if (f.durationNs() > 0) {
                    devices.add(new Simulation.DeviceEvent(device, f.atNs() + f.durationNs(), 1.0));
                }
                continue;
            }
            List<Link> hit = links(topology, f);
            if (hit.isEmpty()) {
                errors.add(unknown(f, topology, source, names(topology, f.target())));
                continue;
            }
            for (Link l : hit) {
                links.add(new Simulation.LinkEvent(l.id(), f.atNs(), f.capacityFactor(), f.extraLatencyNs()));
            }
            if (f.durationNs() > 0) {
                for (Link l : hit) {
                    links.add(new Simulation.LinkEvent(l.id(), f.atNs() + f.durationNs(), 1.0, 0));
                }
            }
        }
        if (!errors.isEmpty()) {
            throw new InputFileException(errors);
        }
        return new FaultEvents(List.copyOf(links), List.copyOf(devices));
    }

    /** The faults of both lists, this one's first. */
    public FaultEvents plus(FaultEvents other) {
        List<Simulation.LinkEvent> l = new ArrayList<>(links);
        l.addAll(other.links);
        List<Simulation.DeviceEvent> d = new ArrayList<>(devices);
        d.addAll(other.devices);
        return new FaultEvents(List.copyOf(l), List.copyOf(d));
    }

    /** The links a link, cable, switch or NIC fault touches; empty when the name is unknown or of another kind. */
    public static List<Link> links(Topology topology, Fault f) {
        String name = f.name();
        if (f.target() == Fault.Target.LINK) {
            int cable = name.indexOf("<->");
            if (cable > 0) {
                String a = name.substring(0, cable);
                String b = name.substring(cable + 3);
                String lane = "";
                int hash = b.indexOf('#');
                if (hash > 0) {
                    lane = b.substring(hash);
                    b = b.substring(0, hash);
                }
                List<Link> both = new ArrayList<>();
                topology.link(a + "->" + b + lane).ifPresent(both::add);
                topology.link(b + "->" + a + lane).ifPresent(both::add);
                return both.size() == 2 ? both : List.of();
            }
            return topology.link(name).map(List::of).orElse(List.of());
        }
        VertexKind wanted = f.target() == Fault.Target.NIC ? VertexKind.NIC : VertexKind.SWITCH;
        List<Link> out = new ArrayList<>();
        for (Vertex v : topology.vertices()) {
            boolean kindMatches = v.kind() == wanted
                    || (f.target() == Fault.Target.SWITCH && v.kind() == VertexKind.NVSWITCH);
            if (v.name().equals(name) && kindMatches) {
                out.addAll(topology.graph().outgoingEdgesOf(v));
                out.addAll(topology.graph().incomingEdgesOf(v));
            }
        }
        return out;
    }

    /** The index of the GPU named {@code name}, or -1. */
    public static int deviceIndex(Topology topology, String name) {
        for (int d = 0; d < topology.deviceCount(); d++) {
            if (topology.device(d).name().equals(name)) {
                return d;
            }
        }
        return -1;
    }

    private static Set<String> names(Topology topology, Fault.Target target) {
        Set<String> names = new LinkedHashSet<>();
        switch (target) {
            case LINK -> topology.links().forEach(l -> names.add(l.name()));
            case GPU -> {
                for (int d = 0; d < topology.deviceCount(); d++) {
                    names.add(topology.device(d).name());
                }
            }
            case SWITCH, NIC -> {
                for (Vertex v : topology.vertices()) {
                    boolean match = target == Fault.Target.NIC ? v.kind() == VertexKind.NIC
                            : v.kind() == VertexKind.SWITCH || v.kind() == VertexKind.NVSWITCH;
                    if (match) {
                        names.add(v.name());
                    }
                }
            }
        }
        return names;
    }

    private static InputError unknown(Fault f, Topology topology, Path source, Set<String> names) {
        String hint = Suggestions.nearest(f.name().replace("<->", "->"), names)
                .map(n -> " (did you mean '" + n + "'?)").orElse("");
        return new InputError(source, f.location(), f.path(), "no " + f.target().id() + " named '" + f.name()
                + "' in " + topology.name() + hint + "; clustersim topology SCENARIO --links lists the links and "
                + "their endpoints");
    }
}
