package io.fleetbus.shared.trust;

import java.util.Base64;

/** PEM text around DER bytes, the way OpenSSL, the JDK and vertx-auth read keys. */
public final class Pem {
  private Pem() {
  }

  public static String encode(String type, byte[] der) {
    String b64 = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + b64 + "\n-----END " + type + "-----\n";
  }

  public static byte[] decode(String pem, String type) {
    String begin = "-----BEGIN " + type + "-----";
    String end = "-----END " + type + "-----";
    int from = pem == null ? -1 : pem.indexOf(begin);
    int to = from < 0 ? -1 : pem.indexOf(end);
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("no " + type + " PEM block");
    }
    return Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
  }
}
