// LangJava ROUNDS: a Java program with a known call structure for sprof's language tests
// (tests/integration/languages_test.cpp): main -> middle -> {leafMath, leafHash}, ROUNDS times.
// Run with -XX:+PreserveFramePointer (JIT code keeps rbp, so sprof walks it without CFI) and
// -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit (names of JIT code in /tmp/perf-PID.map).
public class LangJava {
  static double leafMath(int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += Math.sqrt(i * 1.5 + s * 1e-9);
    return s;
  }

  static long leafHash(int n) {
    long h = 1469598103934665603L;
    for (int i = 0; i < n; i++) {
      h ^= i;
      h *= 1099511628211L;
    }
    return h;
  }

  static double middle(int round) {
    return leafMath(20000) + (leafHash(40000) & 7) + round;
  }

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 4000;
    double sink = 0;
    for (int r = 0; r < rounds; r++) sink += middle(r);
    System.out.println("lang_java done " + (sink > 0));
  }
}
