package org.troika.jsrun;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.troika.jsrun.JsrunFixtures.LSF;
import static org.troika.jsrun.JsrunFixtures.SPECTRUM;
import static org.troika.jsrun.JsrunFixtures.ctx;
import static org.troika.jsrun.JsrunFixtures.settings;
import static org.troika.launcher.options.RunOptionTable.BINDING_ARGS;
import static org.troika.launcher.options.RunOptionTable.JAVA_CDS;
import static org.troika.launcher.options.RunOptionTable.MPI_ARGS;
import static org.troika.launcher.options.RunOptionTable.NETWORK_INTERFACES;
import static org.troika.launcher.options.RunOptionTable.OUTPUT_FILENAME;
import static org.troika.launcher.options.RunOptionTable.PREFIX_TIMESTAMP;
import static org.troika.launcher.options.RunOptionTable.TCP;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.troika.common.UsageException;
import org.troika.common.exec.LaunchPlan;
import org.troika.launcher.spi.RunSettings;
import org.troika.launcher.spi.HostPlan;
import org.troika.launcher.spi.MpiFlavor;
import org.troika.launcher.spi.MpiInstall;
import org.troika.launcher.spi.Allocation;
import org.troika.launcher.spi.BackendPlan;
import org.troika.launcher.spi.LaunchBackend;
import org.troika.launcher.spi.LaunchContext;

class JsrunBackendTest {
    private static final Path SCRATCH = Path.of("/run/troika-1");
    private final JsrunBackend jsrun = new JsrunBackend();

    @Test
    void plainRunUsesTheErfFileInTheScratchDirectory() {
        BackendPlan p = jsrun.plan(ctx(settings("java", "-cp", "app.jar", "Train"), 4, LSF, Map.of("A", "1"),
                SCRATCH));
        assertAll(
                () -> assertEquals(List.of("jsrun", "--erf_input", "/run/troika-1/troika.erf", "java", "-cp", "app.jar",
                        "Train"), p.launch().argv()),
                () -> assertEquals(Map.of("A", "1"), p.launch().env()),
                () -> assertEquals(List.of(SCRATCH.resolve("troika.erf")), List.copyOf(p.files().keySet())),
                () -> assertTrue(p.files().get(SCRATCH.resolve("troika.erf"))
                        .contains("rank: 3: { hostname: h2; cpu: {1}; gpu: {1}; mem: * }"), p.files()::toString),
                () -> assertTrue(p.warnings().isEmpty()));
    }

    @Test
    void outputSmpiArgsAndNicsFollowTheDocumentedOrder() {
        RunSettings s = settings("python", "train.py").with(OUTPUT_FILENAME, Path.of("/out/log")).with(TCP, true)
                .with(MPI_ARGS, List.of("-gpu", "-x", "A=b c")).with(NETWORK_INTERFACES, List.of("ib0", "10.1.0.0/16"));
        LaunchPlan l = jsrun.plan(ctx(s, 2, LSF, Map.of("NCCL_SOCKET_IFNAME", "mine"), SCRATCH)).launch();
        assertAll(
                () -> assertEquals(List.of("jsrun", "--erf_input", "/run/troika-1/troika.erf",
                        "--stdio_stderr", "/out/log/stderr", "--stdio_stdout", "/out/log/stdout",
                        "--smpiargs", "-tcp -gpu -x 'A=b c'", "python", "train.py"), l.argv()),
                () -> assertEquals("mine", l.env().get("NCCL_SOCKET_IFNAME"), "the caller's value wins"),
                () -> assertEquals("1", l.env().get("NCCL_IB_DISABLE")),
                () -> assertEquals("ib0,10.1.0.0/16", l.env().get("OMPI_MCA_btl_tcp_if_include")));
    }

    @Test
    void nicNamesGoToNcclWhenTheCallerHasNone() {
        RunSettings s = settings("a").with(NETWORK_INTERFACES, List.of("ib0", "10.1.0.0/16", "ib1"));
        assertEquals("ib0,ib1", JsrunCommandBuilder.env(s, Map.of()).get("NCCL_SOCKET_IFNAME"));
        assertFalse(JsrunCommandBuilder.env(settings("a"), Map.of()).containsKey("NCCL_SOCKET_IFNAME"));
    }

    @Test
    void bindingArgsReplaceTheErfFile() {
        RunSettings s = settings("a.out").with(BINDING_ARGS, List.of("-n", "4", "-a", "1", "-g", "1"))
                .with(PREFIX_TIMESTAMP, true);
        BackendPlan p = jsrun.plan(ctx(s, 4, LSF, Map.of(), SCRATCH));
        assertEquals(List.of("jsrun", "-n", "4", "-a", "1", "-g", "1", "a.out"), p.launch().argv());
        assertTrue(p.files().isEmpty());
        assertEquals(1, p.warnings().size());
    }

    @Test
    void javaCdsNeedsTheRankWrapperThatJsrunRanksDoNotRunThrough() {
        RunSettings s = settings("java", "-cp", "app.jar", "Train").with(JAVA_CDS, true);
        BackendPlan p = jsrun.plan(ctx(s, 2, LSF, Map.of(), SCRATCH));
        assertEquals(List.of("jsrun starts the ranks without troika's rank wrapper (bin/troika-rankenv), which gives"
                + " java ranks their class-data-sharing archive; --java-cds is ignored (use --launcher mpirun for it)"),
                p.warnings());
        assertEquals(List.of("java", "-cp", "app.jar", "Train"), p.launch().argv().subList(3, 7));
        assertTrue(jsrun.plan(ctx(settings("java", "Train").with(JAVA_CDS, false), 2, LSF, Map.of(), SCRATCH))
                .warnings().isEmpty(), "--no-java-cds asks for nothing jsrun cannot do");
    }

    @Test
    void openMpiTcpAddsNoSmpiFlag() {
        LaunchContext c = new LaunchContext(settings("a").with(TCP, true),
                HostPlan.assign("t", JsrunFixtures.HOSTS, 1), new MpiInstall(MpiFlavor.OPEN_MPI, 4, ""), Map.of(), LSF,
                SCRATCH, x -> true, null);
        assertFalse(jsrun.plan(c).launch().argv().contains("--smpiargs"));
    }

    @Test
    void tooSmallAllocationIsAUsageError() {
        Allocation oneGpu = new Allocation("lsf", "lsf job 1", JsrunFixtures.HOSTS, 1, "blaunch", false);
        UsageException e = assertThrows(UsageException.class,
                () -> jsrun.plan(ctx(settings("a"), 4, oneGpu, Map.of(), SCRATCH)));
        assertTrue(e.getMessage().contains("needs more GPUs than the allocation's 2 hosts x 1 GPUs"), e.getMessage());
        assertThrows(UsageException.class, () -> jsrun.plan(ctx(settings(), 1, LSF, Map.of(), SCRATCH)));
    }

    @Test
    void siteSettingsComeFromTheEnvironment() {
        BackendPlan p = jsrun.plan(ctx(settings("a"), 2, LSF, Map.of("TROIKA_JSRUN_HOST_KEY", "host",
                "TROIKA_JSRUN_CORES_PER_HOST", "42", "TROIKA_JSRUN_THREADS_PER_CORE", "4"), SCRATCH));
        String erf = p.files().values().iterator().next();
        assertTrue(erf.contains("rank: 1: { host: 1; cpu: {84-167}; gpu: {1}; mem: * }"), erf);
    }

    @Test
    void defaultOnlyInsideLsfWithSpectrumAndJsrunOnPath() {
        RunSettings s = settings("a");
        HostPlan plan = HostPlan.assign("t", JsrunFixtures.HOSTS, 1);
        MpiInstall ompi = new MpiInstall(MpiFlavor.OPEN_MPI, 4, "");
        Allocation slurm = new Allocation("slurm", "s", JsrunFixtures.HOSTS, 0, "srun", true);
        assertAll(
                () -> assertTrue(jsrun.isDefaultFor(new LaunchContext(s, plan, SPECTRUM, Map.of(), LSF, SCRATCH,
                        "jsrun"::equals, null))),
                () -> assertFalse(jsrun.isDefaultFor(new LaunchContext(s, plan, SPECTRUM, Map.of(), LSF, SCRATCH,
                        x -> false, null))),
                () -> assertFalse(jsrun.isDefaultFor(new LaunchContext(s, plan, ompi, Map.of(), LSF, SCRATCH,
                        x -> true, null))),
                () -> assertFalse(jsrun.isDefaultFor(new LaunchContext(s, plan, SPECTRUM, Map.of(), slurm, SCRATCH,
                        x -> true, null))),
                () -> assertFalse(jsrun.isDefaultFor(new LaunchContext(s, plan, SPECTRUM, Map.of(), null, SCRATCH,
                        x -> true, null))));
    }

    @Test
    void outsideAnAllocationThePlanHostsAreTheHostList() {
        LaunchContext c = new LaunchContext(settings("a"), HostPlan.assign("-H", JsrunFixtures.HOSTS, 3),
                SPECTRUM, Map.of(), null, null, x -> true, null);
        BackendPlan p = jsrun.plan(c);
        assertEquals(Path.of("troika.erf"), p.files().keySet().iterator().next());
        assertNull(c.allocation());
        assertTrue(p.files().values().iterator().next().contains("rank: 2: { hostname: h2; cpu: {0-1}; mem: * }"));
    }

    @Test
    void isRegisteredAsService() {
        assertTrue(ServiceLoader.load(LaunchBackend.class).stream().anyMatch(b -> b.get().name().equals("jsrun")));
    }
}
