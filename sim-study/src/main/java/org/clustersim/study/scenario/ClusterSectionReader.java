package org.clustersim.study.scenario;

import static org.clustersim.study.scenario.ScenarioFields.*;
import static org.clustersim.study.scenario.SectionChecks.given;

import java.nio.file.Path;
import java.util.Optional;

import org.clustersim.core.input.Diagnostics;
import org.clustersim.core.input.Section;
import org.clustersim.core.input.SourceNode;
import org.clustersim.core.input.SourceTreeReader;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.DeviceProfileReader;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.ClusterSpec;
import org.clustersim.topology.FatTreeSpec;
import org.clustersim.topology.HostAttachment;
import org.clustersim.topology.RackPodSpec;
import org.clustersim.topology.SuperPodSpec;
import org.clustersim.topology.SwitchedClusterSpec;

/**
 * The {@code cluster} section of a GPU scenario: the preset's servers, their fabric, and the
 * device profile of their GPUs ({@code deviceProfile} with {@code deviceOverrides}, also used for
 * TPU chips by {@link TpuSectionReader}). Kept apart from {@link ScenarioReader}, which calls it.
 */
final class ClusterSectionReader {
    /**
     * GPUs per server up to which {@code rail-optimized} is the DGX SuperPOD's (one rail per GPU
     * of an 8-GPU server, SUs of 32 servers); larger NVLink domains get {@link RackPodSpec}.
     */
    private static final int RAILS_PER_SERVER = 8;

    /** The {@code cluster} section. */
    private final Section section;
    private final Path scenario;
    private final SourceTreeReader treeReader;

    /** The cluster and the device profile of its GPUs. */
    record ClusterChoice(ClusterSpec spec, DeviceProfile device) {
    }

    /**
     * @param cluster    the {@code cluster} section
     * @param scenario   the scenario file, against whose folder a profile file resolves
     * @param treeReader reads a profile file
     */
    ClusterSectionReader(Section cluster, Path scenario, SourceTreeReader treeReader) {
        this.section = cluster;
        this.scenario = scenario;
        this.treeReader = treeReader;
    }

    /**
     * {@code cluster.deviceProfile} (a bundled profile's name, or a profile file relative to the
     * scenario) with {@code cluster.deviceOverrides} laid over it; by default the bundled profile
     * of the preset's GPU.
     */
    Optional<DeviceProfile> deviceProfile(String chip) {
        Optional<String> named = DEVICE_PROFILE.text(section);
        SourceNode tree;
        if (named.isPresent() && DeviceProfiles.has(named.get())) {
            tree = DeviceProfiles.tree(named.get());
        } else if (named.isPresent()) {
            Path dir = scenario.toAbsolutePath().getParent();
            Path profile = dir == null ? Path.of(named.get()) : dir.resolve(named.get());
            if (!java.nio.file.Files.isRegularFile(profile)) {
                section.error("deviceProfile", "found '" + named.get() + "'" + notAFile(profile)
                        + ", expected a bundled profile (" + String.join(", ", DeviceProfiles.NAMES)
                        + ") or a profile file relative to the scenario");
                return Optional.empty();
            }
            tree = treeReader.read(profile);
            Diagnostics own = new Diagnostics(profile);
            new DeviceProfileReader(own).read(tree, "");
            own.throwIfAny();
        } else if (DeviceProfiles.has(chip)) {
            tree = DeviceProfiles.tree(chip);
        } else {
            section.error("preset", "the preset's GPU (" + chip + ") has no bundled device profile; give "
                    + "cluster.deviceProfile");
            return Optional.empty();
        }
        SourceNode overrides = section.node(DEVICE_OVERRIDES.name()).orElse(null);
        if (overrides != null) {
            if (!(overrides instanceof SourceNode.MapNode m)) {
                section.error("deviceOverrides", "found " + overrides.describe() + ", expected a mapping of profile fields");
                return Optional.empty();
            }
            tree = SourceNode.overlay(tree, m);
        }
        return new DeviceProfileReader(section.diagnostics()).read(tree, overrides == null ? "" : section.pathOf("deviceOverrides"));
    }

    /** What stands at {@code path} when it is not a regular file ("a directory"), or "" when nothing does. */
    private static String notAFile(Path path) {
        try {
            var attributes = java.nio.file.Files.readAttributes(path, java.nio.file.attribute.BasicFileAttributes.class);
            return ", which is " + org.clustersim.core.input.InputFile.kind(path, attributes) + " (" + path + ")";
        } catch (java.io.IOException e) {
            return "";
        }
    }

    /**
     * The GPUs' host link and memory ({@link HostAttachment}): the preset's, or the accelerator's,
     * with {@code cluster.hostLinkGBps} and {@code cluster.hostMemoryGB} laid over it; both given
     * describe a host the lookup does not know (one link per GPU). Empty when neither is known.
     */
    Optional<HostAttachment> host(String presetName, String accelerator) {
        Optional<Double> link = HOST_LINK_BW.number(section).map(g -> g * 1e9);
        Optional<Double> memory = HOST_MEMORY.number(section).map(g -> g * 1e9);
        Optional<HostAttachment> known = HostAttachment.of(presetName).or(() -> HostAttachment.of(accelerator));
        if (known.isEmpty()) {
            return link.isPresent() && memory.isPresent()
                    ? Optional.of(new HostAttachment("host link", link.get(), 1, memory.get())) : Optional.empty();
        }
        HostAttachment h = known.get();
        if (link.isPresent()) {
            h = h.withLinkBytesPerS(link.get());
        }
        if (memory.isPresent()) {
            h = h.withHostBytesPerGpu(memory.get());
        }
        return Optional.of(h);
    }

    /**
     * A GPU cluster: the preset's servers, or as many as the layout needs, on a single switch, a
     * rail-optimized (DGX SuperPOD SUs of 32 servers of up to 8 GPUs, or of 8 NVL72 racks) or a
     * fat-tree fabric. Empty after reporting errors.
     */
    Optional<ClusterChoice> read(String presetName, Scenario.Parallelism par) {
        return read(presetName, par.gpus());
    }

    /** As {@link #read(String, Scenario.Parallelism)}, for a layout of {@code layoutGpus} GPUs (the default size). */
    Optional<ClusterChoice> read(String presetName, int layoutGpus) {
        String fabric = FABRIC.choice(section);
        boolean rails = fabric.equals("rail-optimized");
        boolean fatTree = fabric.equals("fat-tree");
        int levels = LEVELS.integer(section);
        int radix = RADIX.integer(section);
        if (!fatTree && (given(section, "levels") || given(section, "radix"))) {
            section.error(given(section, "levels") ? "levels" : "radix", "only a fat-tree fabric takes levels and radix");
        }
        SwitchedClusterSpec base = SwitchedClusterSpec.preset(presetName, 1).orElseThrow();
        Optional<DeviceProfile> device = deviceProfile(base.accelerator().name());
        // without a usable profile the rest of the section is still read, for its own errors
        AcceleratorSpec chip = device.map(DeviceProfile::accelerator).orElse(base.accelerator());
        int gpusPerNode = GPUS_PER_NODE.integer(section, base.gpusPerNode());
        int defaultNodes = Math.max(1, (layoutGpus + gpusPerNode - 1) / gpusPerNode);
        int nodes = NODES.integer(section, defaultNodes);
        double nvlink = NVLINK_BW.number(section).map(g -> g * 1e9).orElse(base.nvlinkBytesPerS());
        long nvlinkLat = NVLINK_LAT.number(section).map(Math::round).orElse(base.nvlinkLatencyNs());
        double nic = NIC_BW.number(section).map(g -> g * 1e9).orElse(base.nicBytesPerS());
        long gpuNicLat = GPU_NIC_LAT.number(section).map(Math::round).orElse(base.gpuNicLatencyNs());
        long nicSwitchLat = NIC_LAT.number(section).map(Math::round).orElse(base.nicSwitchLatencyNs());
        double ratio = OVERSUBSCRIPTION.number(section).orElse((Double) OVERSUBSCRIPTION.dflt());
        if (!rails && !fatTree) {
            if (given(section, "oversubscription") && ratio != 1) {
                section.error("oversubscription", "found " + ratio + ", but a single-switch fabric has no level to "
                        + "oversubscribe; use fabric: rail-optimized or fat-tree");
            }
            return device.map(dev -> new ClusterChoice(new SwitchedClusterSpec(base.name(), chip, nodes, gpusPerNode,
                    nvlink, nvlinkLat, nic, gpuNicLat, nicSwitchLat), dev));
        }
        if (fatTree) {
            double[] ratios = levels == 2 ? new double[] {ratio} : new double[] {ratio, 1};
            try {
                FatTreeSpec tree = new FatTreeSpec(base.name() + "-fattree", chip, nodes, gpusPerNode, nvlink, nvlinkLat,
                        nic, gpuNicLat, nicSwitchLat, radix, ratios);
                return device.map(dev -> new ClusterChoice(tree, dev));
            } catch (IllegalArgumentException e) {
                section.error("nodes", "found " + nodes + ": " + e.getMessage());
                return Optional.empty();
            }
        }
        if (gpusPerNode > RAILS_PER_SERVER) {
            // a rack-scale NVLink domain (NVL72): the SuperPOD GB200 fabric, any number of racks; the
            // preset's NIC generation picks the switches (an override of the NIC rate keeps them)
            try {
                RackPodSpec pod = new RackPodSpec(base.name() + "-rails", chip, nodes, gpusPerNode,
                        RackPodSpec.RACKS_PER_UNIT, nvlink, nvlinkLat, nic, gpuNicLat, nicSwitchLat,
                        RackPodSpec.radixFor(base.nicBytesPerS()), ratio);
                return device.map(dev -> new ClusterChoice(pod, dev));
            } catch (IllegalArgumentException e) {
                section.error(given(section, "gpusPerNode") ? "gpusPerNode" : "nodes", "found " + nodes + " racks of "
                        + gpusPerNode + " GPUs: " + e.getMessage());
                return Optional.empty();
            }
        }
        int perUnit = Math.min(nodes, 32);
        int units = (nodes + 31) / 32;
        if (nodes > 32 && (nodes % 32 != 0 || (units > 8 && units % 4 != 0))) {
            section.error("nodes", "found " + nodes + ", but a rail-optimized fabric is built from scalable units of 32 "
                    + "servers: expected up to 32 servers, or 32 x (1..8 or a multiple of 4)");
            return Optional.empty();
        }
        SuperPodSpec pod;
        try {
            pod = new SuperPodSpec(base.name() + "-rails", chip, units, gpusPerNode, perUnit, nvlink, nvlinkLat, nic,
                    gpuNicLat, nicSwitchLat, ratio);
        } catch (IllegalArgumentException e) {
            section.error(given(section, "gpusPerNode") ? "gpusPerNode" : "nodes", "found " + nodes + " servers of " + gpusPerNode
                    + " GPUs: " + e.getMessage());
            return Optional.empty();
        }
        return device.map(dev -> new ClusterChoice(pod, dev));
    }
}
