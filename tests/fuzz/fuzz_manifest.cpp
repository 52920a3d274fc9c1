// The regression manifest reader (`workbench --batch MANIFEST.json`): whatever the file holds, it
// answers with a manifest or diagnostics naming the case and field (never a crash, a hang, an
// exception or a sanitizer report). The input is written to a manifest file in a folder of its
// own that holds a few inputs for relative paths and globs to find.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "driver/manifest.h"

namespace {

std::filesystem::path& Folder() {
  static std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("wb_fuzz_manifest_" + std::to_string(getpid()));
  return dir;
}

const std::string& ManifestPath() {
  static const std::string path = [] {
    const std::filesystem::path& dir = Folder();
    std::filesystem::create_directories(dir / "goldens");
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(Folder(), ec);
    });
    for (const char* name : {"a.py", "b.py", "goldens/a.lowered.py", "baselines.json"}) {
      std::ofstream(dir / name) << "# input\n";
    }
    return (dir / "manifest.json").string();
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = ManifestPath();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  wb::DiagnosticList diags;
  (void)wb::driver::LoadManifest(path, diags);
  return 0;
}
