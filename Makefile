# reel: two commands do everything (see README.md)
#   make run    install what is missing, build, play generated tracks
#   make test   install what is missing, build, run every test
#   make stress the long forms of the stress tests, the queue at scale, and
#               every test under AddressSanitizer and ThreadSanitizer
SHELL := /bin/bash
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
# Debian packages the build, the tests, the demo and the benchmark need.
PACKAGES := pkg-config libdbus-1-dev libmpv-dev libpipewire-0.3-dev libsqlite3-dev libcurl4-openssl-dev libxml2-dev dbus-daemon playerctl ffmpeg python3 \
  python3-dbus python3-dbus-next qdbus-qt5 python3-gi gir1.2-glib-2.0 desktop-file-utils \
  pipewire pipewire-bin wireplumber pulseaudio pulseaudio-utils xvfb x11-utils python3-xlib e2fsprogs \
  mpc python3-mpd ncmpc snapserver snapclient python3-musicbrainzngs \
  bash fish zsh scdoc man-db groff-base mpd ncmpcpp tmux \
  cantata tesseract-ocr imagemagick espeak-ng libavformat-dev python3-mutagen zzuf
BENCH_PACKAGES := mpv mpv-mpris mpd mpc curl
# The desktops whose media widgets make test-desktops drives.
DESKTOP_PACKAGES := gnome-shell plasma-workspace qtwayland5 sway waybar at-spi2-core python3-pyatspi playerctl
DEMO_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/reel/demo

# What make deb and make test-package need beyond PACKAGES.
PACKAGE_PACKAGES := debhelper dpkg-dev build-essential fakeroot lintian
VERSION := $(shell cat VERSION)
MAN_PAGES := reel.1 reeld.1 reeld.conf.5
STATIC := .build/static/release

.PHONY: all deps bench-deps package-deps build release static man completions test test-desktops test-package stress run bench \
  install install-files uninstall deb clean

all: release

# Installs missing packages with apt-get when root; otherwise prints the line to run.
deps:
	@./scripts/ensure-packages $(PACKAGES)

bench-deps:
	@./scripts/ensure-packages $(PACKAGES) $(BENCH_PACKAGES)

package-deps:
	@./scripts/ensure-packages $(PACKAGES) $(PACKAGE_PACKAGES)

build: deps
	$(SWIFT) build

# What is installed is linked statically with the Swift runtime: reel starts in
# 7 ms instead of 13, and reeld touches fewer pages (RSS 73.7 MB instead of 77.8).
release: deps
	$(SWIFT) build -c release
	$(MAKE) static

# The binaries that are installed and packaged (no deps: debian/rules runs it under fakeroot).
static:
	$(SWIFT) build -c release --static-swift-stdlib --product reel --build-path .build/static
	$(SWIFT) build -c release --static-swift-stdlib --product reeld --build-path .build/static
	$(SWIFT) build -c release --static-swift-stdlib --product reel-scan --build-path .build/static

# The man pages, from their scdoc sources in docs/man.
man:
	mkdir -p .build/man
	for page in $(MAN_PAGES); do scdoc < docs/man/$$page.scd > .build/man/$$page; done

# The shells' completion scripts, as reel prints them.
completions: static
	mkdir -p .build/completions
	$(STATIC)/reel completion bash > .build/completions/reel
	$(STATIC)/reel completion zsh > .build/completions/_reel
	$(STATIC)/reel completion fish > .build/completions/reel.fish

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

# The desktops' own widgets as clients (GNOME Shell headless): installs them, then runs their tests
# with the strict-client and desktop-entry tests. Not part of make test (the desktops are large).
test-desktops: deps
	@./scripts/ensure-packages $(DESKTOP_PACKAGES)
	$(SWIFT) build --build-tests
	REEL_DESKTOPS=1 $(SWIFT) test --skip-build --disable-swift-testing \
	  --filter 'DesktopWidgetTests|StrictClientTests|DesktopEntryTests|MetadataTests'

# Long forms (REEL_STRESS=1): 10,000 fuzzed calls, 16 clients for 30 s, 50
# kills, 20,000 enclosures that fail, and the other hostile-origin cases; then the 100,000-entry queue's figures; then every test twice more,
# built with AddressSanitizer and with ThreadSanitizer (build dirs of their own).
# The sound, video and Snapcast tests measure real-time behaviour (10 ms of silence,
# 20 ms of drift) that a sanitized daemon, 2-3 times slower, cannot be held to.
SANITIZED_SKIP := --skip SoundServerTests --skip VideoTests --skip 'IntegrationTests.SnapcastTests'

stress: deps release
	$(SWIFT) build --build-tests
	REEL_STRESS=1 $(SWIFT) test --skip-build --disable-swift-testing \
	  --filter 'StressTests|DiskFaultTests|HostileOriginTests|FullMediaStoreTests|LiveStreamTests|LargeFeedTests|MPDHostileTests'
	./.build/release/reel-bench --queue
	$(SWIFT) build --build-tests --sanitize=address --build-path .build/asan
	REEL_SANITIZED=1 LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp $(SWIFT) test --skip-build --sanitize=address \
	  --build-path .build/asan --disable-swift-testing $(SANITIZED_SKIP)
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build/tsan
	REEL_SANITIZED=1 $(SWIFT) test --skip-build --sanitize=thread \
	  --build-path .build/tsan --disable-swift-testing $(SANITIZED_SKIP)

run: release
	@./scripts/demo "$(DEMO_DIR)"

bench: bench-deps release static
	./.build/release/reel-bench

install: release install-files

# Everything a package holds, under $(DESTDIR)$(PREFIX); what make install and debian/rules run.
install-files: static man completions
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/reel/dbus \
	  $(DESTDIR)$(PREFIX)/share/dbus-1/services $(DESTDIR)$(PREFIX)/lib/systemd/user \
	  $(DESTDIR)$(PREFIX)/share/applications $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d $(DESTDIR)$(PREFIX)/lib/reel
	install -m 755 $(STATIC)/reeld $(STATIC)/reel $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(STATIC)/reel-scan $(DESTDIR)$(PREFIX)/lib/reel/
	install -m 644 dbus/org.mpris.MediaPlayer2.reel.xml $(DESTDIR)$(PREFIX)/share/reel/dbus/
	sed 's|@BINDIR@|$(PREFIX)/bin|g' dbus/org.mpris.MediaPlayer2.reel.service \
	  > $(DESTDIR)$(PREFIX)/share/dbus-1/services/org.mpris.MediaPlayer2.reel.service
	sed 's|@BINDIR@|$(PREFIX)/bin|g' dbus/reeld.service > $(DESTDIR)$(PREFIX)/lib/systemd/user/reeld.service
	sed 's|@BINDIR@|$(PREFIX)/bin|g' examples/reel.desktop > $(DESTDIR)$(PREFIX)/share/applications/reel.desktop
	install -m 644 .build/man/reel.1 .build/man/reeld.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 .build/man/reeld.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 .build/completions/reel $(DESTDIR)$(PREFIX)/share/bash-completion/completions/reel
	install -m 644 .build/completions/_reel $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_reel
	install -m 644 .build/completions/reel.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/reel.fish

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/reeld $(DESTDIR)$(PREFIX)/bin/reel $(DESTDIR)$(PREFIX)/lib/reel/reel-scan \
	  $(DESTDIR)$(PREFIX)/share/reel/dbus/org.mpris.MediaPlayer2.reel.xml \
	  $(DESTDIR)$(PREFIX)/share/dbus-1/services/org.mpris.MediaPlayer2.reel.service \
	  $(DESTDIR)$(PREFIX)/lib/systemd/user/reeld.service \
	  $(DESTDIR)$(PREFIX)/share/applications/reel.desktop \
	  $(DESTDIR)$(PREFIX)/share/man/man1/reel.1 $(DESTDIR)$(PREFIX)/share/man/man1/reeld.1 \
	  $(DESTDIR)$(PREFIX)/share/man/man5/reeld.conf.5 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/reel $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_reel \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/reel.fish

# A Debian package in .build/deb, built by dpkg-buildpackage from scripts/debian (copied to debian/
# for the build: the packaging lives with the scripts, and debian/ is never committed).
deb: package-deps
	@test "$$(dpkg-parsechangelog -l scripts/debian/changelog -S Version)" = "$(VERSION)" || \
	  { echo "scripts/debian/changelog's version is not VERSION's ($(VERSION)): add an entry (dch -c scripts/debian/changelog)"; exit 1; }
	rm -rf debian && cp -r scripts/debian debian
	mkdir -p .build/deb
	dpkg-buildpackage -us -uc -b --buildinfo-option=-u.build/deb --changes-option=-u.build/deb --buildinfo-file=.build/deb/reel_$(VERSION)_$$(dpkg --print-architecture).buildinfo \
	  --changes-file=.build/deb/reel_$(VERSION)_$$(dpkg --print-architecture).changes; status=$$?; rm -rf debian; exit $$status
	lintian --fail-on error .build/deb/reel_$(VERSION)_*.changes

# Installs the package on this machine, checks it (files, --version, D-Bus activation, removal), removes it.
test-package: deb
	./scripts/test-package .build/deb/reel_$(VERSION)_$$(dpkg --print-architecture).deb

clean:
	rm -rf .build
