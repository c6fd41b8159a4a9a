# A CPU-bound Ruby program for attach tests and benchmarks (scripts/bench-attach.sh): hashes,
# string scans, regular expressions and sorting, in rounds; each second it prints
# "SECONDS ROUNDS" (the rounds done in that second), for SECONDS (ARGV[0], default 60) seconds.
$stdout.sync = true
WORDS = (1..1500).map { |i| "word#{i * 7919 % 10007}x#{i % 13}" }

def tally(words)
  counts = {}
  words.each { |w| counts[w[0, 6]] = (counts[w[0, 6]] || 0) + 1 }
  counts.size
end

def scan(words)
  words.join(" ").scan(/word(\d+)7x(\d)/).size
end

def order(words)
  words.sort_by(&:reverse).first.size
end

def round(words)
  tally(words) + scan(words) + order(words)
end

seconds = (ARGV[0] || 60).to_f
start = last = Process.clock_gettime(Process::CLOCK_MONOTONIC)
rounds = 0
loop do
  round(WORDS)
  rounds += 1
  now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  next if now - last < 1.0
  puts format("%.1f %d", now - start, rounds)
  rounds = 0
  last = now
  break if now - start >= seconds
end
