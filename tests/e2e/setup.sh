# Sourced by .ci/run and the end-to-end scripts: installs, when missing, what a window needs on a
# machine with no display (Xvfb, Mesa's software Vulkan) and xdotool to act as a person.
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
missing=()
for package in xvfb xauth mesa-vulkan-drivers libvulkan1 xdotool; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
