#!/usr/bin/env ruby
# puzzlegrade adapter for CMU 15-110 Programming Assignment 11 (Lights Out).
#
# Usage: cs15110.rb lights_out.rb QUESTION BOARD_FILE
#
# Loads the student's lights_out.rb (with the Canvas library stubbed: the
# `display` question draws and is not graded here), calls one function on
# the 5x5 board and prints the question's transcript (docs/adapters.md):
#
#   rand_board   srand(15110), then 200 boards from rand_board()
#   select       for every cell: a fresh copy, select!(b, r, c)
#   all_out      all_out?(board), then all_out? on an all-off board
#   solvable     solvable?(board)
#
# Boards print as rows of `#` (1) and `O` (0); any other value is `?`.
# Whatever the student's code prints goes to stderr. Exit statuses: 0
# transcript printed, 2 usage, 3 the student's code raised (on stderr).

QUESTIONS = %w[rand_board select all_out solvable].freeze
RANDOM_BOARDS = 200

# Every Canvas call the handout's starter code can make does nothing.
module Canvas
  def self.method_missing(*) = true
  def self.respond_to_missing?(*) = true

  # Canvas::Text, Canvas::Circle, Canvas::Rectangle, ...
  def self.const_missing(_name)
    Class.new do
      def initialize(*); end
      def method_missing(*) = self
      def respond_to_missing?(*) = true
    end
  end
end

def read_board(path)
  header, *rest = File.read(path).split("\n")
  width, height = header.strip.split("x").map { |n| Integer(n) }
  cells = rest.join.delete(" \t\r").chars
  raise ArgumentError, "#{path}: not a #{width}x#{height} board" unless cells.size == width * height
  Array.new(height) { |r| Array.new(width) { |c| cells[r * width + c] == "#" ? 1 : 0 } }
end

def rows(board)
  board.map { |row| row.map { |v| v == 1 ? "#" : v == 0 ? "O" : "?" }.join }
rescue NoMethodError, TypeError
  ["not a list of lists: #{board.inspect}"]
end

def main(student, question, board)
  lines = []
  case question
  when "rand_board"
    srand(15_110)
    RANDOM_BOARDS.times { lines.concat(rows(rand_board)) }
  when "select"
    board.size.times do |r|
      board[0].size.times do |c|
        b = board.map(&:dup)
        send(:select!, b, r, c)
        lines << "#{r} #{c}"
        lines.concat(rows(b))
      end
    end
  when "all_out"
    lines << (send(:all_out?, board.map(&:dup)) ? "true" : "false")
    lines << (send(:all_out?, Array.new(5) { Array.new(5, 0) }) ? "true" : "false")
  when "solvable"
    lines << (send(:solvable?, board.map(&:dup)) ? "true" : "false")
  end
  lines
end

unless ARGV.size == 3 && QUESTIONS.include?(ARGV[1])
  warn "usage: cs15110.rb lights_out.rb {#{QUESTIONS.join(',')}} BOARD_FILE"
  exit 2
end
student, question, board_file = ARGV
begin
  board = read_board(board_file)
rescue StandardError => e
  warn "cs15110 adapter: #{e.message}"
  exit 2
end

# The transcript goes to the real stdout; the student's prints to stderr.
transcript = STDOUT.dup
$stdout.reopen($stderr)
begin
  load File.expand_path(student)
  lines = main(student, question, board)
rescue Exception => e # rubocop:disable Lint/RescueException -- the student's, whatever it is
  warn "#{e.class}: #{e.message}"
  warn e.backtrace.first(5).join("\n") if e.backtrace
  exit 3
end
transcript.write(lines.map { |l| "#{l}\n" }.join)
transcript.flush
exit 0
