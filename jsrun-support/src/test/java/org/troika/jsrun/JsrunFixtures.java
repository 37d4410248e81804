package org.troika.jsrun;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.HostSlots;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.LaunchContext;

/** Launch contexts for jsrun tests: an LSF allocation of two 2-GPU hosts. */
final class JsrunFixtures {
    static final MpiInstall SPECTRUM = new MpiInstall(MpiFlavor.SPECTRUM_MPI, 10, "IBM Spectrum MPI 10.4");
    static final List<HostSlots> HOSTS = List.of(new HostSlots("h1", 2), new HostSlots("h2", 2));
    static final Allocation LSF = new Allocation("lsf", "lsf job 1 (LSB_MCPU_HOSTS=h1 2 h2 2)", HOSTS, 2, "blaunch",
            false);

    private JsrunFixtures() {}

    static RunSettings settings(String... command) {
        return RunSettings.of(List.of(command));
    }

    static LaunchContext ctx(RunSettings s, int np, Allocation a, Map<String, String> env, Path scratch) {
        return new LaunchContext(s, HostPlan.assign("test", HOSTS, np), SPECTRUM, env, a, scratch, x -> true, null);
    }
}
