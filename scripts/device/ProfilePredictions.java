import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.device.AttentionPass;
import org.clustersim.strategies.device.DeviceProfile;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.device.GemmSurface;

/**
 * Compares a device log of scripts/device/h100_kernels.py with what a bundled profile predicts, through
 * the cost model's own classes (GEMM surface, attention tables, streaming rate, Adam fraction):
 * <pre>
 * java -cp sim-cli/target/clustersim.jar scripts/device/ProfilePredictions.java h100-sxm [gemm=|attn=]LOG...
 * </pre>
 * A log named with {@code gemm=} or {@code attn=} contributes only its GEMM or attention lines.
 * GEMMs and attention at the measured (short-burst) clock; the sustained lines against the surface read at
 * the profile's sustainedComputeFraction. A shape listed in several logs or twice in one is the mean.
 */
public class ProfilePredictions {
    public static void main(String[] args) throws Exception {
        DeviceProfile p = DeviceProfiles.bundled(args[0]);
        Map<String, double[]> gemm = new LinkedHashMap<>();   // "dtype m n k" -> sum of TFLOP/s, count
        Map<String, String[]> attn = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            String only = args[i].startsWith("gemm=") ? "gemm" : args[i].startsWith("attn=") ? "attn" : "";
            String file = only.isEmpty() ? args[i] : args[i].substring(5);
            for (String line : Files.readAllLines(Path.of(file))) {
                String[] f = line.split(",");
                if (!only.isEmpty() && !line.startsWith(only + ",")) {
                    continue;
                }
                if (line.startsWith("gemm,") && f.length > 6 && !f[2].equals("error")) {
                    String key = f[1] + " " + f[3] + " " + f[4] + " " + f[5];
                    double r = Double.parseDouble(f[7].replace("TFLOPs", ""));
                    double[] s = gemm.computeIfAbsent(key, x -> new double[2]);
                    s[0] += r; s[1]++;
                } else if (line.startsWith("attn,") && !f[1].equals("error")) {
                    attn.put(line, f);
                } else if (line.startsWith("sustained,") && line.contains("summary")) {
                    System.out.println("# " + line);
                }
            }
        }
        System.out.printf(Locale.ROOT, "# profile %s: power fraction %.3f, stream %.4f x %.2f TB/s, adam %.3f, launch host %.2f us gap %.2f us%n",
                p.name(), p.power().sustainedComputeFraction(), p.streamEfficiency(), p.hbmBytesPerS() / 1e12,
                p.adamBandwidthFraction(), p.launch().hostNs() / 1e3, p.launch().gapNs() / 1e3);
        System.out.println("gemm dtype m n k measured_tflops profile_tflops profile/measured");
        double sq = 0; int cnt = 0;
        for (Map.Entry<String, double[]> e : gemm.entrySet()) {
            String[] k = e.getKey().split(" ");
            double m = Double.parseDouble(k[1]), n = Double.parseDouble(k[2]), kk = Double.parseDouble(k[3]);
            GemmSurface s = k[0].equals("fp8") ? p.fp8Gemm() : p.bf16Gemm();
            double measured = e.getValue()[0] / e.getValue()[1];
            double model = 2 * m * n * kk / s.ns(m, n, kk) * 1e9 / 1e12;
            sq += Math.pow(model / measured - 1, 2); cnt++;
            System.out.printf(Locale.ROOT, "gemm %s %d %d %d %.1f %.1f %+.1f%%%n", k[0], (long) m, (long) n, (long) kk,
                    measured, model, 100 * (model / measured - 1));
        }
        if (cnt > 0) {
            System.out.printf(Locale.ROOT, "# gemm rms of profile/measured - 1 (rates): %.1f%%%n", 100 * Math.sqrt(sq / cnt));
        }
        double f = p.power().sustainedComputeFraction();
        System.out.printf(Locale.ROOT, "# surface at the sustained fraction %.3f: bf16 8192^3 %.1f TFLOP/s, fp8 8192^3 %.1f TFLOP/s%n", f,
                2 * Math.pow(8192, 3) / p.bf16Gemm().atClock(f).ns(8192, 8192, 8192) * 1e-3,
                2 * Math.pow(8192, 3) / p.fp8Gemm().atClock(f).ns(8192, 8192, 8192) * 1e-3);
        System.out.println("attn impl d causal s pass measured_tflops profile_tflops profile/measured");
        for (String[] a : attn.values()) {
            AttentionImpl impl = a[1].startsWith("FLASH") ? AttentionImpl.FLASH2 : AttentionImpl.CUDNN;
            int d = Integer.parseInt(a[2].substring(2));
            boolean causal = Boolean.parseBoolean(a[3].substring(7));
            int s = Integer.parseInt(a[4].substring(2));
            double fwd = Double.parseDouble(a[8].replace("TFLOPs", ""));
            double bwd = Double.parseDouble(a[10].replace("TFLOPs", ""));
            for (AttentionPass pass : List.of(AttentionPass.FORWARD, AttentionPass.BACKWARD)) {
                double measured = pass == AttentionPass.FORWARD ? fwd : bwd;
                double model = p.attention().rate(impl, pass, d, causal, s) / 1e12;
                System.out.printf(Locale.ROOT, "attn %s %d %s %d %s %.1f %.1f %+.1f%%%n", impl.key(), d, causal, s,
                        pass.key(), measured, model, 100 * (model / measured - 1));
            }
        }
    }
}
