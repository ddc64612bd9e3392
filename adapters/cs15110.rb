#!/usr/bin/env ruby
# puzzlegrade adapter for CMU 15-110 Programming Assignment 11 (Lights Out).
#
# Usage: cs15110.rb lights_out.rb QUESTION BOARD_FILE
#
# Loads the student's lights_out.rb (with a Canvas library that records
# what is drawn), calls one function on the 5x5 board and prints the
# question's transcript (docs/adapters.md):
#
#   rand_board   srand(15110), then 200 boards from rand_board()
#   display      Canvas.init(200, 200, "PA11"), display(board), then the
#                drawing described: `background COLOUR` (a rectangle that
#                covers the canvas, else `none`), and for the 5x5 grid of
#                circles, row by row, `r,c FILL LABEL LABEL-COLOUR` (the
#                text centred on the circle; `no label at the centre`)
#   select       for every cell: a fresh copy, select!(b, r, c)
#   all_out      all_out?(board), then all_out? on an all-off board
#   solvable     solvable?(board)
#
# Boards print as rows of `#` (1) and `O` (0); any other value is `?`.
# Whatever the student's code prints goes to stderr. Exit statuses: 0
# transcript printed, 2 usage, 3 the student's code raised (on stderr).

QUESTIONS = %w[rand_board display select all_out solvable].freeze
RANDOM_BOARDS = 200
SIZE = 200

# The course's Canvas (RubyLabs), recording: every shape made is kept as
# [kind, arguments, options]; every other call does nothing.
module Canvas
  @drawn = []

  class << self
    attr_reader :drawn

    def init(*)
      @drawn.clear
      true
    end

    def method_missing(*) = true
    def respond_to_missing?(*) = true

    # Canvas::Text, Canvas::Circle, Canvas::Rectangle, ...
    def const_missing(name)
      kind = name.to_s
      const_set(name, Class.new do
        define_method(:initialize) { |*args, **opts| Canvas.drawn << [kind, args, opts] }
        def method_missing(*) = self
        def respond_to_missing?(*) = true
      end)
    end
  end
end

def colour(opts)
  c = opts[:fill] || opts[:color]
  c&.to_s&.downcase&.sub("grey", "gray")
end

def number(v) = Float(v) rescue nil

# The drawing of a 5x5 board on a SIZE x SIZE canvas, described.
def drawing(drawn)
  bg = drawn.find do |kind, a, _|
    kind == "Rectangle" && a.size >= 4 && a.first(4).all? { |v| number(v) } &&
      number(a[0]) <= 0 && number(a[1]) <= 0 && number(a[2]) >= SIZE && number(a[3]) >= SIZE
  end
  out = ["@ display(board) drew", "background #{bg ? colour(bg[2]) || 'none' : 'none'}"]
  circles = drawn.select { |kind, a, _| kind == "Circle" && a.size >= 3 && number(a[0]) && number(a[1]) }
  xs = circles.map { |_, a, _| number(a[0]) }.uniq.sort
  ys = circles.map { |_, a, _| number(a[1]) }.uniq.sort
  unless circles.size == 25 && xs.size == 5 && ys.size == 5
    return out << "#{circles.size} circles, not a 5x5 grid"
  end
  texts = drawn.select { |kind, a, _| kind == "Text" && a.size >= 3 && number(a[1]) && number(a[2]) }
  cells = circles.to_h { |_, a, o| [[ys.index(number(a[1])), xs.index(number(a[0]))], [a, o]] }
  5.times do |r|
    5.times do |c|
      a, o = cells[[r, c]]
      x, y = number(a[0]), number(a[1])
      label = texts.find do |_, t, to|
        (number(t[1]) - x).abs <= 1 && (number(t[2]) - y).abs <= 1 &&
          [nil, "center"].include?(to[:anchor]&.to_s)
      end
      said = label ? "#{label[1][0].to_s.delete(' ')} #{colour(label[2]) || 'black'}" : "no label at the centre"
      out << "@ display(board) drew the circle at #{r},#{c} (fill, text, text colour) as"
      out << "#{r},#{c} #{colour(o) || 'none'} #{said}"
    end
  end
  out
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
  # Labels (not compared): the calls in the handout's terms, for the
  # harness to explain a wrong answer (docs/adapters.md, Labels).
  lines = ["@values ruby", "@input #{board.inspect}"]
  case question
  when "rand_board"
    srand(15_110)
    RANDOM_BOARDS.times { lines.concat(rows(rand_board)) }
  when "display"
    Canvas.init(SIZE, SIZE, "PA11")
    send(:display, board.map(&:dup))
    lines.concat(drawing(Canvas.drawn))
  when "select"
    board.size.times do |r|
      board[0].size.times do |c|
        b = board.map(&:dup)
        send(:select!, b, r, c)
        lines << "@ select!(board, #{r}, #{c}) left the board"
        lines << "#{r} #{c}"
        lines.concat(rows(b))
      end
    end
  when "all_out"
    lines << "@ all_out?(board) returned"
    lines << (send(:all_out?, board.map(&:dup)) ? "true" : "false")
    lines << "@ all_out? on an all-off board returned"
    lines << (send(:all_out?, Array.new(5) { Array.new(5, 0) }) ? "true" : "false")
  when "solvable"
    lines << "@ solvable?(board) returned"
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
